import Foundation

/// How much of a store's HTTP cache is kept: at most `entries` cached answers and about `bytes` of
/// them (their stored text). Past either, the least recently stored or confirmed entries go first
/// (down to nine tenths of the bound, so trimming is rare). The bound is kept in the store, so it
/// holds for every repository and process on it.
///
/// ```swift
/// try await storage.setHTTPCacheLimit(HTTPCacheLimit(entries: 200, bytes: 1 << 20))
/// ```
public struct HTTPCacheLimit: Sendable, Hashable {
    /// The most entries kept.
    public var entries: Int
    /// The most bytes of entries kept (the length of their stored JSON text).
    public var bytes: Int

    /// A bound of `entries` entries and `bytes` bytes (each at least 1).
    public init(entries: Int = 1_000, bytes: Int = 4 << 20) {
        self.entries = max(1, entries)
        self.bytes = max(1, bytes)
    }

    /// 1,000 entries and 4 MiB: what a store keeps when the app sets nothing.
    public static let `default` = HTTPCacheLimit()
}

extension Storage {
    /// Bounds this store's HTTP cache to `limit`, kept in the store; entries past it go at once.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails.
    public func setHTTPCacheLimit(_ limit: HTTPCacheLimit) async throws {
        try await transaction { tx in
            var usage = try tx.httpCacheUsage()
            usage.limit = limit
            try tx.storeHTTPCacheUsage(usage)
            try tx.trimHTTPCache(usage)
        }
    }

    /// The bound of this store's HTTP cache: what ``setHTTPCacheLimit(_:)`` set, else
    /// ``HTTPCacheLimit/default``.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails.
    public func httpCacheLimit() async throws -> HTTPCacheLimit {
        try await transaction { tx in try tx.httpCacheUsage().limit }
    }
}
