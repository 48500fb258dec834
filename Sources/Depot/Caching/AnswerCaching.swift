import Foundation

/// What one GET answer does to the store's HTTP cache, stored with the answer in one transaction.
enum AnswerCaching: Sendable {
    /// A `200`: the record takes the answer, and its entry becomes this one.
    case store(HTTPCacheEntry, key: String)
    /// A `200` the cache must not keep (`no-store`, or nothing to validate or keep fresh): the
    /// record takes the answer, and its entry is forgotten.
    case forget(key: String)
    /// A `304`: the stored record is current and is not written; the entry is replaced by
    /// `refreshed` when the `304` renewed its freshness.
    case notModified(refreshed: HTTPCacheEntry?, key: String)
    /// The server failed and the stored copy answered within its `stale-if-error` window: nothing
    /// is written.
    case staleAfterError(DepotError)
}
