import Foundation

/// What the store keeps of one GET answer (a record's, or a list page's): its validators, its
/// freshness facts (RFC 9111 §4.2, RFC 5861), the request headers it varies on (hashed), and for a
/// list page the ids it held, in order. Kept as a synced record in ``HTTPCache/collection``, so
/// every store keeps it without a schema of its own.
struct HTTPCacheEntry: Sendable, Hashable {
    /// The URL the answer came from (path and query, as the request named it).
    var url: String
    /// The answer's `ETag`, sent back as `If-None-Match`.
    var etag: String?
    /// The answer's `Last-Modified`, sent back as `If-Modified-Since` when there is no `ETag`.
    var lastModified: String?
    /// When the answer (or the `304` that last confirmed it) arrived, by the repository's clock.
    var receivedAt: Date
    /// The answer's age when it arrived, in seconds (RFC 9111 §4.2.3, corrected initial age).
    var initialAge: Int
    /// How long the server said it stays fresh, in seconds; nil when it said nothing (the
    /// repository's ``RepositoryConfiguration/defaultMaxAge`` applies then).
    var lifetime: Int?
    /// `no-cache`: never fresh, always revalidated.
    var noCache: Bool
    /// `must-revalidate`: never answered stale, not even after an error.
    var mustRevalidate: Bool
    /// `stale-while-revalidate`, in seconds.
    var staleWhileRevalidate: Int?
    /// `stale-if-error`, in seconds.
    var staleIfError: Int?
    /// The lower-cased request header names the answer varies on (``HTTPCache/alwaysVaried``
    /// included); `["*"]` for `Vary: *`.
    var vary: [String]
    /// The hash of the request's values of ``vary`` (``HTTPCache/varyHash(of:names:)``).
    var varyHash: String
    /// A list page's ids, in order; nil for a record's entry.
    var ids: [String]?
    /// A list page's document without its items, for the next page's link or cursor, as a pull's
    /// page read recorded it (an empty array for a bare array); nil when no page read stored the
    /// entry (a `readAll`'s), which a pull then does not replay.
    var paging: JSON?
    /// A list page's `Link` values and `X-Total-Count`, for the next page.
    var pagingHeaders: [String: [String]]
    /// For a list page, the collection's list token when its request left
    /// (``RecordTransaction/listGeneration(collection:)``): a write of the collection since then
    /// makes the entry unusable. Nil for a record's entry.
    var generation: String?
    /// For a list entry a repository's `readAll` answers from, the digest of the records it
    /// listed as the store held them once the answer was stored (``HTTPCache/digest(of:)``): a
    /// record written since (another account's copy, a pull's newer one) makes the entry
    /// unusable, so a `304` or a fresh entry never confirms what the list never described.
    var digest: String?

    /// The entry for an answer with `headers` to `url`, arrived at `now`, asked with `request`
    /// headers hashed to `varyHash` over ``vary`` (the app's `identifying` headers included).
    /// Nil for `no-store`.
    init?(
        headers: CacheHeaders, url: String, now: Date, request: [(name: String, value: String)],
        identifying: [String] = []
    ) {
        guard !headers.noStore else { return nil }
        self.url = url
        etag = headers.etag.map { String($0.prefix(HTTPCache.maximumValidatorLength)) }
        lastModified = headers.lastModified.map { String($0.prefix(HTTPCache.maximumValidatorLength)) }
        receivedAt = now
        // The age it arrived with (RFC 9111 §4.2.3): the Date header's distance or Age, the larger.
        initialAge = headers.currentAge(storedAt: now, now: now)
        // Expires without Date counts from the arrival (§4.2.1).
        lifetime =
            headers.maxAge != nil || headers.expires != nil
            ? headers.freshnessLifetime(defaultMaxAge: nil, receivedAt: now) : nil
        noCache = headers.noCache
        mustRevalidate = headers.mustRevalidate
        staleWhileRevalidate = headers.staleWhileRevalidate
        staleIfError = headers.staleIfError
        vary = HTTPCache.varied(headers.vary, identifying: identifying)
        varyHash = HTTPCache.varyHash(of: request, names: vary)
        ids = nil
        paging = nil
        pagingHeaders = [:]
        generation = nil
        digest = nil
    }

    /// Whether the request whose headers are `request` may use this entry: the same URL, and the
    /// same values of every header the answer varies on (`Vary: *` never matches).
    func matches(url: String, request: [(name: String, value: String)]) -> Bool {
        guard url == self.url, !vary.contains("*") else { return false }
        return HTTPCache.varyHash(of: request, names: vary) == varyHash
    }

    /// The entry's age at `now`, in seconds: its initial age plus the time it has been kept (a
    /// clock that went back counts none).
    func age(at now: Date) -> Int {
        let kept = now.timeIntervalSince(receivedAt)
        let resident = kept.isFinite && kept > 0 ? (kept >= Double(Int32.max) ? Int(Int32.max) : Int(kept)) : 0
        return initialAge.addingReportingOverflow(resident).overflow ? Int.max : initialAge + resident
    }

    /// How long it stays fresh: the server's lifetime, else `defaultMaxAge`, else 0.
    func freshness(defaultMaxAge: Int?) -> Int { max(0, lifetime ?? defaultMaxAge ?? 0) }

    /// Seconds past its freshness at `now` (0 while fresh).
    func staleness(at now: Date, defaultMaxAge: Int?) -> Int {
        max(0, age(at: now) - freshness(defaultMaxAge: defaultMaxAge))
    }

    /// Whether it may answer without asking the server (RFC 9111 §4.2): fresh and not `no-cache`.
    func isFresh(at now: Date, defaultMaxAge: Int?) -> Bool {
        !noCache && age(at: now) < freshness(defaultMaxAge: defaultMaxAge)
    }

    /// Whether, stale at `now`, it may answer at once while it is revalidated (RFC 5861 §3).
    func mayServeWhileRevalidating(at now: Date, defaultMaxAge: Int?) -> Bool {
        guard !noCache, !mustRevalidate, let window = staleWhileRevalidate else { return false }
        return staleness(at: now, defaultMaxAge: defaultMaxAge) <= window
    }

    /// How a read under `use` may answer from this entry at `now` without waiting for the server:
    /// `false` fresh (no request), `true` stale (answer, then revalidate in the background), nil
    /// when it must ask the server first.
    func answersStale(under use: CacheUse, at now: Date, defaultMaxAge: Int?) -> Bool? {
        guard use != .revalidate else { return nil }
        if isFresh(at: now, defaultMaxAge: defaultMaxAge) { return false }
        let servesStale: Bool =
            switch use {
            case .revalidate: false
            case .cacheFirst: mayServeWhileRevalidating(at: now, defaultMaxAge: defaultMaxAge)
            case .staleWhileRevalidate: !noCache && !mustRevalidate
            }
        return servesStale ? true : nil
    }

    /// Whether, stale at `now`, it may answer when the server fails (RFC 5861 §4; never under
    /// `no-cache` or `must-revalidate`, RFC 9111 §4.2.4).
    func mayServeAfterError(at now: Date, defaultMaxAge: Int?) -> Bool {
        guard !noCache, !mustRevalidate, let window = staleIfError else { return false }
        return staleness(at: now, defaultMaxAge: defaultMaxAge) <= window
    }

    /// `headers` of a conditional request: `If-None-Match` with the `ETag`, else
    /// `If-Modified-Since` with `Last-Modified`; empty when the entry has neither.
    var conditionalHeaders: [String: String] {
        if let etag { return ["If-None-Match": etag] }
        if let lastModified { return ["If-Modified-Since": lastModified] }
        return [:]
    }

    /// This entry confirmed by a `304` with `headers` at `now`: fresh again from then, with the
    /// `304`'s freshness facts where it gives them (RFC 9111 §4.3.4).
    func refreshed(by headers: CacheHeaders, now: Date) -> HTTPCacheEntry {
        var entry = self
        entry.receivedAt = now
        entry.initialAge = headers.currentAge(storedAt: now, now: now)
        if headers.maxAge != nil || headers.expires != nil {
            entry.lifetime = headers.freshnessLifetime(defaultMaxAge: nil, receivedAt: now)
        }
        if headers.noCache { entry.noCache = true }
        if headers.mustRevalidate { entry.mustRevalidate = true }
        if let etag = headers.etag { entry.etag = String(etag.prefix(HTTPCache.maximumValidatorLength)) }
        return entry
    }

    /// ``refreshed(by:now:)`` for a `304` answered to a request sent with `sent`'s header fields:
    /// the stored answer is now the one for that request, so the entry is keyed by its values of
    /// ``vary`` (a refreshed token, say: the next request with it may use the entry).
    func refreshed(by headers: CacheHeaders, now: Date, sent: [(name: String, value: String)]) -> HTTPCacheEntry {
        var entry = refreshed(by: headers, now: now)
        entry.varyHash = HTTPCache.varyHash(of: sent, names: vary)
        return entry
    }
}
