import Foundation

/// One step of a collection's stored JSON from the version before it to ``version``: a body that
/// rewrites one record's object in place, as GRDB's `DatabaseMigrator` registers one migration.
///
/// ```swift
/// Migration(to: 2) { record in
///     record["kind"] = record["kind"] ?? "plain"
/// }
/// ```
///
/// The body runs on every record's object and on its server snapshot (so a PATCH still diffs
/// the migrated object against a migrated snapshot and sends only what the user changed), inside
/// the one transaction that migrates the collection. A body that throws rolls that transaction
/// back: the store stays as it was and `Storage.migrate(_:)` fails with `DepotError`
/// `.migration`. The body must not touch `id`: a record keeps its id.
public struct Migration: Sendable {
    /// Whether a migration also rewrites the writes waiting in the outbox.
    public enum QueuedWrites: Sendable, Hashable {
        /// A queued write is sent as the old version wrote it (the default). The server may still
        /// speak the old shape (an app update often ships before, or without, a server change);
        /// the write was made against the old model, so its fields mean what they meant then;
        /// and a patch is a fragment a migration written for whole objects could break.
        case asWritten
        /// The payload of every queued `.create` and `.update` of the collection is migrated too,
        /// for a server that only accepts the new shape. Patch payloads are fragments and are
        /// left as written; deletes carry none.
        case migrate
    }

    /// The schema version this migration brings a record to; above 0, and above the version of
    /// the migration before it.
    public let version: Int
    /// What happens to the collection's queued writes; ``QueuedWrites/asWritten`` by default.
    public let queuedWrites: QueuedWrites
    let body: @Sendable (inout JSONObject) throws -> Void

    /// Makes a migration to `version`.
    ///
    /// - Parameters:
    ///   - version: the version a record has after `body`; above 0.
    ///   - queuedWrites: whether queued `.create`/`.update` payloads are migrated too;
    ///     ``QueuedWrites/asWritten`` (they are not) by default.
    ///   - body: rewrites one stored object in place; may throw to refuse a record.
    public init(
        to version: Int, queuedWrites: QueuedWrites = .asWritten,
        _ body: @escaping @Sendable (inout JSONObject) throws -> Void
    ) {
        self.version = version
        self.queuedWrites = queuedWrites
        self.body = body
    }
}
