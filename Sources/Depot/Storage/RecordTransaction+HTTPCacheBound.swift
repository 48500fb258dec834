import Foundation

/// What a store's HTTP cache holds and may hold: counted as entries are stored and dropped, kept
/// in one record of Depot's own, and made exact again whenever the cache is trimmed.
struct HTTPCacheUsage: Sendable, Hashable {
    /// The reserved collection, and the record's id in it.
    static let collection = "__depot_http_cache_usage"
    static let id = "usage"

    var entries = 0
    var bytes = 0
    var limit = HTTPCacheLimit.default

    /// The usage a stored record holds; the default for none (never traps on what it holds).
    init(object: JSONObject? = nil) {
        guard let object else { return }
        entries = Self.count(object["entries"]) ?? 0
        bytes = Self.count(object["bytes"]) ?? 0
        limit = HTTPCacheLimit(
            entries: Self.count(object["maxEntries"]) ?? HTTPCacheLimit.default.entries,
            bytes: Self.count(object["maxBytes"]) ?? HTTPCacheLimit.default.bytes)
    }

    var object: JSONObject {
        [
            "entries": .integer(Int64(entries)), "bytes": .integer(Int64(bytes)),
            "maxEntries": .integer(Int64(limit.entries)), "maxBytes": .integer(Int64(limit.bytes)),
        ]
    }

    /// Whether the cache holds more than its bound.
    var isOver: Bool { entries > limit.entries || bytes > limit.bytes }

    private static func count(_ json: JSON?) -> Int? {
        guard case .integer(let value)? = json, value >= 0 else { return nil }
        return Int(clamping: value)
    }
}

extension RecordTransaction {
    /// The cache's usage and bound, as this transaction sees them.
    func httpCacheUsage() throws -> HTTPCacheUsage {
        HTTPCacheUsage(object: try fetch(collection: HTTPCacheUsage.collection, id: HTTPCacheUsage.id)?.object)
    }

    func storeHTTPCacheUsage(_ usage: HTTPCacheUsage) throws {
        try upsert(
            StoredRecord(
                collection: HTTPCacheUsage.collection, id: HTTPCacheUsage.id, object: usage.object,
                syncState: .synced))
    }

    /// Counts an entry of `newBytes` replacing `old` (nil: none), then trims the cache when it
    /// passed its bound.
    func accountHTTPCacheEntry(replacing old: StoredRecord?, newBytes: Int?) throws {
        guard old != nil || newBytes != nil else { return }
        var usage = try httpCacheUsage()
        if let old {
            usage.entries = max(0, usage.entries - 1)
            usage.bytes = max(0, usage.bytes - ((try? EncodedRecord.text(old.object).utf8.count) ?? 0))
        }
        if let newBytes {
            usage.entries += 1
            usage.bytes += newBytes
        }
        try storeHTTPCacheUsage(usage)
        if usage.isOver { try trimHTTPCache(usage) }
    }

    /// Drops the least recently stored or confirmed entries until the cache holds nine tenths of
    /// its bound, and counts what is left exactly. A store whose transactions cannot list a
    /// collection keeps its entries (every store of this package can).
    func trimHTTPCache(_ usage: HTTPCacheUsage) throws {
        guard usage.isOver, let listing = self as? any ListingStorageTransaction else { return }
        let stored = try listing.records(collection: HTTPCache.collection).map { record in
            (
                id: record.id, bytes: (try? EncodedRecord.text(record.object).utf8.count) ?? 0,
                used: HTTPCacheEntry(object: record.object)?.receivedAt ?? .distantPast
            )
        }
        var (entries, bytes) = (stored.count, stored.reduce(0) { $0 + $1.bytes })
        let (keptEntries, keptBytes) = (usage.limit.entries * 9 / 10, usage.limit.bytes / 10 * 9)
        for entry in stored.sorted(by: { $0.used < $1.used }) {
            guard entries > keptEntries || bytes > keptBytes else { break }
            try delete(collection: HTTPCache.collection, id: entry.id)
            entries -= 1
            bytes -= entry.bytes
        }
        var exact = usage
        (exact.entries, exact.bytes) = (entries, bytes)
        try storeHTTPCacheUsage(exact)
    }
}
