import Foundation

extension Storage {
    /// Brings `schema`'s collection to the schema's version: runs its pending migrations (those
    /// above the stored version) on every record's object and server snapshot and, when a
    /// migration opts in, on the collection's queued `.create`/`.update` payloads, then stores the
    /// new version — all in one transaction. Run it when the store opens, before the app reads or
    /// writes the collection.
    ///
    /// ```swift
    /// let report = try await storage.migrate(
    ///     CollectionSchema("notes", entity: Note.self, migrations: [
    ///         Migration(to: 2) { record in record["kind"] = record["kind"] ?? "plain" }
    ///     ]))
    /// print(report.fromVersion, report.toVersion, report.recordsMigrated)
    /// ```
    ///
    /// The version is stored in the store itself, so a migration runs once per store and is not
    /// run again after a restart. After the migrations, a synced record is read again from its
    /// server snapshot, so a field the server always sent but the old model ignored appears
    /// without a request. A record that still cannot be read as the entity is kept and listed in
    /// ``MigrationReport/unreadable``. Pull cursors are not touched: call
    /// ``resetPullCursors(collection:)`` when the new model needs rows the server will not send
    /// again otherwise.
    ///
    /// - Parameter schema: the collection, its entity type and its migrations.
    /// - Returns: what was done.
    /// - Throws: `DepotError` `.migration` when a migration throws (its message names the
    ///   collection, the version and the record id; the store is left as it was) or when the
    ///   versions are not increasing above 0; `.storage` when the store fails.
    @discardableResult
    public func migrate(_ schema: CollectionSchema) async throws -> MigrationReport {
        try schema.validate()
        let collection = schema.collection
        let query = OutboxQuery(collections: [collection], selection: .all)
        let outcome = try await transaction { tx -> MigrationOutcome in
            guard let listing = tx as? any ListingStorageTransaction else { return .needsListing }
            return .done(
                try tx.migrate(schema, records: listing.records(collection: collection), queued: listing.outbox(query)))
        }
        if case .done(let report) = outcome { return report }
        // A store whose transactions cannot list: list just before, and read each again inside.
        let ids = try await fetch(collection: collection, matching: Criteria(includeDeleted: true)).map(\.id)
        let sequences = try await outbox(query).map(\.sequence)
        return try await transaction { tx in
            try tx.migrate(
                schema, records: ids.compactMap { try tx.fetch(collection: collection, id: $0) },
                queued: sequences.compactMap { try tx.outboxEntry(sequence: $0) })
        }
    }

    /// Brings every collection of `schemas` to its schema's version, one transaction per
    /// collection, in order (see `migrate(_:)`). A collection that fails stops
    /// the run: the ones before it stay migrated, it and the ones after it stay as they were.
    ///
    /// - Returns: one report per schema, in order.
    /// - Throws: `DepotError` `.migration` or `.storage`, as `migrate(_:)`.
    @discardableResult
    public func migrate(_ schemas: [CollectionSchema]) async throws -> [MigrationReport] {
        var reports: [MigrationReport] = []
        for schema in schemas { reports.append(try await migrate(schema)) }
        return reports
    }

    /// The schema version `collection` is stored at: 0 when it was never migrated.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails, `.migration` when the stored
    ///   version is not a whole number.
    public func schemaVersion(of collection: String) async throws -> Int {
        guard let record = try await fetch(collection: SchemaVersions.collection, id: collection) else {
            return 0
        }
        return try SchemaVersions.version(of: record)
    }

    /// Forgets every incremental-pull cursor of `collection` (of every query), so its next pull
    /// is a full one: after a migration, when the new model reads fields of rows the server will
    /// not send again otherwise. ``SynchronizableRepository/resetPullCursor()`` does the same for
    /// a repository's collection.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails.
    public func resetPullCursors(collection: String) async throws {
        let prefix = collection + "?"
        let cursors = try await fetch(collection: PullCursors.collection, matching: Criteria())
        try await transaction { tx in
            for cursor in cursors where cursor.id.hasPrefix(prefix) {
                try tx.delete(collection: PullCursors.collection, id: cursor.id)
            }
        }
    }
}

/// What a migration transaction came to: done, or asking for the collection listed first.
private enum MigrationOutcome: Sendable {
    case done(MigrationReport)
    case needsListing
}
