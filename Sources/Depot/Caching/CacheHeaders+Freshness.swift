import Foundation

extension CacheHeaders {
    /// Seconds the response stays fresh (RFC 9111 §4.2.1): `max-age`, else `Expires` − `Date`,
    /// else `defaultMaxAge` when the server says nothing (the repository's own heuristic, §4.2.2).
    ///
    /// `no-store` and `no-cache` give 0, the most restrictive reading when they meet `max-age`
    /// (§4.2.1): such an answer is revalidated before every reuse. The result is within
    /// `0...`2^31.
    ///
    /// - Parameters:
    ///   - defaultMaxAge: The lifetime, in seconds, of an answer with neither `max-age` nor
    ///     `Expires`; nil (or a negative value) for 0.
    ///   - receivedAt: When the answer arrived: stands in for a missing `Date` under `Expires`
    ///     (§4.2.1). Without either, `Expires` gives 0.
    /// - Returns: The freshness lifetime in seconds.
    public func freshnessLifetime(defaultMaxAge: Int?, receivedAt: Date? = nil) -> Int {
        if noStore || noCache { return 0 }
        if let maxAge { return Self.clampedSeconds(maxAge) }
        if let expires {
            guard let base = date ?? receivedAt else { return 0 }
            return Self.seconds(expires.timeIntervalSince(base))
        }
        return Self.clampedSeconds(defaultMaxAge ?? 0)
    }

    /// The answer's current age in seconds (RFC 9111 §4.2.3): the larger of its `Age` and the
    /// time between its `Date` and its arrival, plus the time it has been stored since.
    ///
    /// - Parameters:
    ///   - storedAt: When the answer arrived (`response_time`).
    ///   - now: The time to compute the age at.
    ///   - requestedAt: When the request was sent (`request_time`), if known: the round trip is
    ///     added to `Age`, as §4.2.3 does.
    /// - Returns: The age in seconds, within `0...`2^31.
    public func currentAge(storedAt: Date, now: Date, requestedAt: Date? = nil) -> Int {
        let apparentAge = date.map { Self.seconds(storedAt.timeIntervalSince($0)) } ?? 0
        let responseDelay = requestedAt.map { Self.seconds(storedAt.timeIntervalSince($0)) } ?? 0
        let correctedAge = age + responseDelay
        let residentTime = Self.seconds(now.timeIntervalSince(storedAt))
        return min(max(apparentAge, correctedAge) + residentTime, Self.maximumDeltaSeconds)
    }

    /// True while the answer stored at `storedAt` is fresh at `now`: its freshness lifetime is
    /// greater than its current age (RFC 9111 §4.2).
    ///
    /// - Parameters:
    ///   - storedAt: When the answer arrived.
    ///   - now: The time of the reuse.
    ///   - defaultMaxAge: The lifetime of an answer without `max-age` or `Expires`.
    public func isFresh(storedAt: Date, now: Date, defaultMaxAge: Int?) -> Bool {
        freshnessLifetime(defaultMaxAge: defaultMaxAge, receivedAt: storedAt)
            > currentAge(storedAt: storedAt, now: now)
    }

    /// True when a stale answer may be served at `now` while it is revalidated in the background:
    /// within `stale-while-revalidate` seconds of going stale (RFC 5861 §3), and neither
    /// `no-cache`, `no-store` nor `must-revalidate` forbids serving it stale (RFC 9111 §4.2.4).
    public func mayServeStaleWhileRevalidating(storedAt: Date, now: Date, defaultMaxAge: Int?) -> Bool {
        mayServeStale(within: staleWhileRevalidate, storedAt: storedAt, now: now, defaultMaxAge: defaultMaxAge)
    }

    /// True when a stale answer may be served at `now` because revalidating it failed (a transport
    /// error or a 500, 502, 503 or 504): within `stale-if-error` seconds of going stale (RFC 5861
    /// §4), and neither `no-cache`, `no-store` nor `must-revalidate` forbids it.
    public func mayServeStaleIfError(storedAt: Date, now: Date, defaultMaxAge: Int?) -> Bool {
        mayServeStale(within: staleIfError, storedAt: storedAt, now: now, defaultMaxAge: defaultMaxAge)
    }

    /// True when the answer can be stored at all (no `no-store`).
    public var isStorable: Bool { !noStore }

    /// True when the answer carries a validator for a conditional request.
    public var hasValidator: Bool { etag != nil || lastModified != nil }

    /// True when the answer is stale at `now` by at most `window` seconds and may be served so.
    func mayServeStale(within window: Int?, storedAt: Date, now: Date, defaultMaxAge: Int?) -> Bool {
        guard let window, !noStore, !noCache, !mustRevalidate else { return false }
        let lifetime = freshnessLifetime(defaultMaxAge: defaultMaxAge, receivedAt: storedAt)
        return currentAge(storedAt: storedAt, now: now) < lifetime + window
    }

    /// `interval` as whole seconds within `0...`2^31 (NaN and negative give 0).
    static func seconds(_ interval: TimeInterval) -> Int {
        guard interval > 0 else { return 0 }
        guard interval < TimeInterval(maximumDeltaSeconds) else { return maximumDeltaSeconds }
        return Int(interval)
    }

    /// `value` within `0...`2^31.
    static func clampedSeconds(_ value: Int) -> Int { min(max(value, 0), maximumDeltaSeconds) }
}
