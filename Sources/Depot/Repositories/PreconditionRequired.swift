import Foundation

/// The one decision for a write refused `428 Precondition Required` (the server requires
/// `If-Match` and none was sent), for both roads that send writes: the outbox channel (every
/// write of a repository with a store, remote-first ones included) and a repository without a
/// store.
///
/// The caller reads the entity as the server has it now; when that copy is `base` (the server's
/// copy the app's change was made against) and comes with a strong `ETag`, the write goes once
/// more under `If-Match`. Otherwise the change was made against another version (or against one
/// Depot does not know): a `.conflict` with status 428, the server's body kept, as a 412 would be.
enum PreconditionRequired {
    /// What a write refused 428 does next.
    enum Decision: Sendable {
        /// Goes once more under `If-Match` with this `ETag`.
        case sendAgain(ifMatch: String)
        /// Does not go again: this `.conflict` is its outcome.
        case conflict(DepotError)
    }

    /// Decides from the 428 `error`, the `base` the change was made against, and the server's copy
    /// now (nil when it has none). `mayResend` is false when the road cannot send `If-Match`
    /// (conditional writes are off).
    static func decide(
        _ error: DepotError, base: JSON?, server: (json: JSON, etag: String?)?, mayResend: Bool = true
    ) -> Decision {
        guard mayResend, let server, let base, server.json == base, let etag = server.etag, ETag.isStrong(etag) else {
            let changed = base != nil && (server.map { $0.json != base } ?? true)
            return .conflict(conflict(error, changed: changed))
        }
        return .sendAgain(ifMatch: etag)
    }

    /// The `.conflict` a 428 becomes when the write cannot go again as it is.
    static func conflict(_ error: DepotError, changed: Bool) -> DepotError {
        var conflict = error
        conflict.code = .conflict
        conflict.message =
            changed
            ? "the server requires If-Match (428) and its copy changed since the app's change was made"
            : "the server requires If-Match (428) and the version the app's change was made against is not known"
        return conflict
    }
}
