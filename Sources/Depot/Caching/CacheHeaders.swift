import Foundation

/// What one response's headers say about caching it (RFC 9111 private cache, RFC 5861).
///
/// Parsing never traps and does bounded work whatever the server sends: each field value is read
/// up to ``maximumFieldLength`` bytes, `Cache-Control` up to ``maximumDirectives`` directives in at
/// most ``maximumCacheControlFields`` fields. A `Cache-Control` beyond those bounds (or cut off in
/// the middle of a directive) makes the answer `no-store` and `no-cache`: an answer Depot cannot
/// read in full is never kept.
///
/// Duplicates follow RFC 9111 §4.2.1 the restrictive way: the smallest `max-age`,
/// `stale-while-revalidate` and `stale-if-error` win (never fresher than the first occurrence), a
/// flag directive is on when any occurrence says so, and the earliest of several `Expires` wins.
/// Invalid freshness information is stale (§4.2.1): `max-age=abc`, `max-age=-1` or a bare
/// `max-age` give `0`; an invalid `Expires` (such as `0`) is already expired (§5.3). A delta-seconds
/// too large to hold becomes 2^31 (§1.2.2).
///
/// ```swift
/// let headers = CacheHeaders(fields: [
///     (name: "Cache-Control", value: "max-age=60, stale-while-revalidate=30"),
///     (name: "ETag", value: "\"v1\""),
/// ])
/// let lifetime = headers.freshnessLifetime(defaultMaxAge: nil)  // 60
/// ```
public struct CacheHeaders: Sendable, Hashable {
    /// The `ETag`, verbatim (a weak `W/` prefix kept), or nil when absent, longer than
    /// ``maximumFieldLength`` or holding a control character (it could not be sent back).
    public var etag: String?
    /// The `Last-Modified` value, verbatim, or nil when absent or not an HTTP date.
    public var lastModified: String?
    /// `no-store`: the answer must not be kept (RFC 9111 §5.2.2.5).
    public var noStore: Bool
    /// `no-cache`, with or without field names: every reuse needs a revalidation first
    /// (RFC 9111 §5.2.2.4; the qualified form is treated as the unqualified one).
    public var noCache: Bool
    /// `must-revalidate`: once stale, never reused without a successful revalidation, not even on
    /// error (RFC 9111 §5.2.2.2).
    public var mustRevalidate: Bool
    /// `private`, with or without field names. Depot is a private cache: this never stops storing.
    public var isPrivate: Bool
    /// `max-age` in seconds, 0 for an invalid one, at most 2^31; `s-maxage` is for shared caches and
    /// ignored.
    public var maxAge: Int?
    /// `stale-while-revalidate` in seconds (RFC 5861 §3): how long after going stale the answer may
    /// still be served while it is revalidated in the background.
    public var staleWhileRevalidate: Int?
    /// `stale-if-error` in seconds (RFC 5861 §4): how long after going stale the answer may still be
    /// served when revalidating fails (an error or a 5xx).
    public var staleIfError: Int?
    /// The `Age` in seconds (RFC 9111 §5.1), 0 when absent or invalid, at most 2^31.
    public var age: Int
    /// The `Date`, or nil when absent or not an HTTP date.
    public var date: Date?
    /// The `Expires`; an invalid value is already expired (`Date.distantPast`), nil when absent.
    public var expires: Date?
    /// The `Vary` field names, lower-cased, each once, in order; `["*"]` for `Vary: *` (and for a
    /// `Vary` that cannot be read: an invalid name or more than ``maximumDirectives`` names).
    public var vary: [String]

    /// The most bytes of one field value that are read.
    public static let maximumFieldLength = 8 * 1024
    /// The most `Cache-Control` directives (and `Vary` names) that are read.
    public static let maximumDirectives = 64
    /// The most `Cache-Control` fields that are read.
    public static let maximumCacheControlFields = 16
    /// The value a delta-seconds too large to hold becomes: 2^31 (RFC 9111 §1.2.2).
    public static let maximumDeltaSeconds = 2_147_483_648

    /// Headers that say nothing: no validators, no directives.
    public init() {
        etag = nil
        lastModified = nil
        noStore = false
        noCache = false
        mustRevalidate = false
        isPrivate = false
        maxAge = nil
        staleWhileRevalidate = nil
        staleIfError = nil
        age = 0
        date = nil
        expires = nil
        vary = []
    }

    /// Reads the caching fields among `fields` (names matched without regard to case, repeated
    /// fields in order). Never traps; the work is bounded (see ``CacheHeaders``).
    ///
    /// - Parameter fields: A response's header fields, as the transport delivered them.
    public init(fields: [(name: String, value: String)]) {
        self.init()
        var cacheControl = CacheControlDirectives()
        var cacheControlFields = 0
        var sawETag = false
        var sawLastModified = false
        var sawAge = false
        var sawDate = false
        var varyNames: [String] = []
        var varyIsStar = false
        for field in fields {
            switch Self.knownField(field.name) {
            case .cacheControl:
                cacheControlFields += 1
                if cacheControlFields > Self.maximumCacheControlFields {
                    cacheControl.overflowed = true
                } else {
                    cacheControl.parse(field.value)
                }
            case .etag:
                guard !sawETag else { continue }
                sawETag = true
                etag = Self.validatorText(field.value)
            case .lastModified:
                guard !sawLastModified else { continue }
                sawLastModified = true
                if let text = Self.validatorText(field.value), HTTPDate.parse(text) != nil { lastModified = text }
            case .age:
                guard !sawAge else { continue }
                sawAge = true
                age = Self.ageValue(field.value)
            case .date:
                guard !sawDate else { continue }
                sawDate = true
                date = HTTPDate.parse(Self.trimmed(field.value))
            case .expires:
                let value = HTTPDate.parse(Self.trimmed(field.value)) ?? .distantPast
                expires = min(expires ?? value, value)
            case .vary:
                guard !varyIsStar else { continue }
                if !Self.readVary(field.value, into: &varyNames) { varyIsStar = true }
            case nil:
                continue
            }
        }
        vary = varyIsStar ? ["*"] : varyNames
        noStore = cacheControl.noStore
        noCache = cacheControl.noCache
        mustRevalidate = cacheControl.mustRevalidate
        isPrivate = cacheControl.isPrivate
        maxAge = cacheControl.maxAge
        staleWhileRevalidate = cacheControl.staleWhileRevalidate
        staleIfError = cacheControl.staleIfError
        if cacheControl.overflowed {
            noStore = true
            noCache = true
        }
    }

    /// Reads the caching fields among `headers`.
    ///
    /// - Parameter headers: A response's header fields, as the transport delivered them.
    public init(_ headers: HTTPFields) {
        self.init(fields: headers.map { (name: $0.name.rawName, value: $0.value) })
    }
}
