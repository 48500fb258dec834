/// How a read (`read(id)`, `readAll`) uses the HTTP cache in the store: what the server's
/// validators and freshness (RFC 9111, RFC 5861) allow, per ``Rule``. A pull's pages always
/// revalidate (conditionally): a pull is how the app asks the server what changed.
///
/// Under every use a stored answer's `ETag` / `Last-Modified` go out as `If-None-Match` /
/// `If-Modified-Since`, and a `304` answers from the store (no body, no decode, no write).
public enum CacheUse: String, Sendable, Hashable {
    /// Always ask the server, conditionally when the store has validators (the default).
    case revalidate
    /// Answer from the store with no request while the stored answer is fresh (its `max-age`,
    /// `Expires`, or ``RepositoryConfiguration/defaultMaxAge``); within its
    /// `stale-while-revalidate` window answer at once and revalidate in the background; else
    /// revalidate first. `no-cache` and `must-revalidate` always revalidate first.
    case cacheFirst
    /// Answer from the store at once (``Sourced/isStale`` when the stored answer is not fresh)
    /// and revalidate in the background; the revalidated value reaches live queries. A fresh
    /// answer asks nothing; `no-cache` and (when stale) `must-revalidate` revalidate first.
    case staleWhileRevalidate
}
