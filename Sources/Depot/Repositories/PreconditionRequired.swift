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
    /// now (nil when it has none), the copy judged against `base` by `fields` (the fields the app
    /// writes). `mayResend` is false when the road cannot send `If-Match` (conditional writes are off).
    static func decide(
        _ error: DepotError, base: JSON?, server: (json: JSON, etag: String?)?, fields: WrittenFields,
        mayResend: Bool = true
    ) -> Decision {
        guard mayResend, let server, let base, fields.same(server.json, base), let etag = server.etag,
            ETag.isStrong(etag)
        else {
            let changed = base.map { base in server.map { !fields.same($0.json, base) } ?? true } ?? false
            return .conflict(conflict(error, changed: changed))
        }
        return .sendAgain(ifMatch: etag)
    }

    /// Decides for an update, PATCH or delete whose record's version is unknown
    /// (``StoredRecord/isVersionUnknown``: a write's answer changed it without an `ETag`), before
    /// it is sent, from the `base` its change was made against (the server's copy the answer left)
    /// and the server's copy read now (nil when it has none), by the same rule as a 428: the copy
    /// still `base`, the write goes under its `ETag` (without `If-Match` when the copy has no
    /// strong one: there is none to send); a copy changed since (or no `base` known) is a
    /// `.conflict` (status 412, as the server would answer the version the app had); a server
    /// without the entity lets the write go (a delete is done, an update is refused `404`). The
    /// copy is judged against `base` by `fields`: the fields the app writes (a stamp the server
    /// wrote with its answer, a field the model does not know, is no change).
    static func decideUnknownVersion(
        base: JSON?, server: (json: JSON, etag: String?)?, fields: WrittenFields
    ) -> Result<String?, DepotError> {
        guard let server else { return .success(nil) }
        guard let base, fields.same(server.json, base) else {
            let changed = base != nil
            return .failure(
                DepotError(
                    .conflict,
                    changed
                        ? "the record's version was unknown (a write's answer carried no ETag) and the server's copy changed since"
                        : "the record's version is unknown (a write's answer carried no ETag) and no copy of it is stored",
                    status: 412))
        }
        guard let etag = server.etag, ETag.isStrong(etag) else { return .success(nil) }
        return .success(etag)
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
