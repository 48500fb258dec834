import Foundation

extension StorageTransaction {
    /// The version `collection` is stored at; 0 when it was never migrated.
    ///
    /// - Throws: `DepotError` `.migration` when the stored version is not a whole number.
    func schemaVersion(of collection: String) throws -> Int {
        guard let record = try fetch(collection: SchemaVersions.collection, id: collection) else { return 0 }
        return try SchemaVersions.version(of: record)
    }

    /// Runs the pending migrations of `schema` on `records` (the collection's, as this transaction
    /// sees them) and, when a migration opts in, on the payloads of `queued` (its outbox entries),
    /// then stores the new version: all in this transaction, which the caller rolls back if this
    /// throws.
    ///
    /// After the migrations, a synced record is read again from its migrated server snapshot
    /// (snapshot → entity → object), so a field the server always sent but the old model ignored
    /// appears; a record with local changes keeps its migrated object. A record that still cannot
    /// be read as the entity is kept as the migrations left it and reported as unreadable.
    ///
    /// - Throws: `DepotError` `.migration` naming the collection, the version and the record
    ///   when a migration throws.
    func migrate(_ schema: CollectionSchema, records: [StoredRecord], queued: [OutboxEntry]) throws
        -> MigrationReport
    {
        let collection = schema.collection
        let from = try schemaVersion(of: collection)
        var report = MigrationReport(collection: collection, fromVersion: from, toVersion: from)
        // Nothing pending, or a store written by a newer version of the app: left alone.
        guard from < schema.version else { return report }
        let pending = schema.migrations.filter { $0.version > from }
        for original in records {
            var record = original
            try Self.apply(pending, to: &record, collection: collection)
            if record.syncState != .deleted, !Self.redecode(&record, schema) { report.unreadable.append(record.id) }
            if record != original {
                try upsert(record)
                report.recordsMigrated += 1
            }
        }
        let forQueued = pending.filter { $0.queuedWrites == .migrate }
        if !forQueued.isEmpty {
            for var entry in queued where entry.operation == .create || entry.operation == .update {
                guard case .object(var payload)? = entry.payload else { continue }
                for migration in forQueued {
                    try Self.apply(
                        migration, to: &payload, collection: collection,
                        what: "queued write \(entry.sequence) of record \(entry.entityID)")
                }
                guard entry.payload != .object(payload) else { continue }
                entry.payload = .object(payload)
                try replaceOutbox(entry)
                report.queuedWritesMigrated += 1
            }
        }
        // The entries queued now were written by an older model: a later write never folds into
        // one (their shapes differ, even a migrated create's from a patch the new model makes).
        let stored = try fetch(collection: SchemaVersions.collection, id: collection)
        let fence = ([SchemaVersions.asWrittenThrough(of: stored)] + queued.map(\.sequence)).compactMap { $0 }.max()
        try upsert(SchemaVersions.record(collection: collection, version: schema.version, asWrittenThrough: fence))
        report.toVersion = schema.version
        return report
    }

    /// Runs `migrations` on `record`'s object and its snapshot; a snapshot that was the object
    /// stays the object.
    private static func apply(_ migrations: [Migration], to record: inout StoredRecord, collection: String) throws {
        let snapshotIsObject = record.snapshot == record.object
        for migration in migrations {
            try apply(migration, to: &record.object, collection: collection, what: "record \(record.id)")
            if snapshotIsObject {
                record.snapshot = record.object
            } else if var snapshot = record.snapshot {
                try apply(migration, to: &snapshot, collection: collection, what: "snapshot of record \(record.id)")
                record.snapshot = snapshot
            }
        }
    }

    private static func apply(
        _ migration: Migration, to object: inout JSONObject, collection: String, what: String
    ) throws {
        do {
            try migration.body(&object)
        } catch {
            throw DepotError(
                .migration, "cannot migrate \(collection) to version \(migration.version): \(what): \(error)",
                underlying: error)
        }
    }

    /// Reads a synced record again from its snapshot (snapshot → entity → object); checks that
    /// any other record reads as the entity. Returns whether the record reads.
    private static func redecode(_ record: inout StoredRecord, _ schema: CollectionSchema) -> Bool {
        if record.syncState == .synced, let snapshot = record.snapshot {
            do {
                record.object = try schema.normalize(snapshot)
                return true
            } catch {
                // The snapshot does not read: the migrated object may still.
            }
        }
        do {
            _ = try schema.normalize(record.object)
            return true
        } catch {
            return false
        }
    }
}
