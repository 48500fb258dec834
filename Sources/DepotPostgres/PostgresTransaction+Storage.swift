#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresTransaction: ListingStorageTransaction {
        private var quoted: String { storage.quoted }

        /// The record with `id`, as this transaction sees it, or nil.
        public func fetch(collection: String, id: String) throws -> StoredRecord? {
            if let lock = PostgresEntityLock(schema: storage.schema, collection: collection, id: id) {
                try lockEntities([lock], shared: PostgresEntityLock.sharedReadCollections.contains(collection))
            } else {
                try sendDeferred()
            }
            return try execute(
                "fetch \(collection)/\(id)",
                "SELECT \(unescaped: PostgresStorage.recordColumns) FROM \(unescaped: quoted).records WHERE collection = \(collection) AND id = \(id)"
            ).first.map(PostgresStorage.record)
        }

        /// Adds or replaces `record`.
        public func upsert(_ record: StoredRecord) throws {
            let encoded = try PostgresStorage.storageErrors("cannot encode \(record.collection)/\(record.id)") {
                try EncodedRecord(record)
            }
            try upsert(encoded: encoded)
        }

        /// Adds or replaces `record`, binding its JSON text as it is. Sent without waiting for the
        /// server: a later read of the transaction sees it, and its commit waits for it. The
        /// entity's lock, when the transaction does not hold it yet, goes inside the same statement
        /// (an `INSERT … ON CONFLICT` decides on the latest committed row, whatever its snapshot),
        /// and so does the change notice of the record (delivered only if the transaction commits),
        /// so the commit sends no notice of its own for it.
        public func upsert(encoded record: EncodedRecord) throws {
            let what = "write \(record.collection)/\(record.id)"
            let lock = PostgresEntityLock(schema: storage.schema, collection: record.collection, id: record.id)
            if lock == nil, storage.writeLocking == .entity {
                try deferUpsert(
                    what, storage.upsertQuery(record), of: PostgresStorage.RecordKey(record.collection, record.id))
                recorder.changed(record.collection, record.id)
                return
            }
            let notice = storage.changeNotice(changed: record.collection, record.id)
            if let lock, !takeEntityLocks([lock]).isEmpty {
                try sendUnanswered(what, storage.singleUpsertStatement(record, notice: notice, lock: lock))
            } else {
                try sendUnanswered(
                    what, storage.upsertQuery(record, notice: notice),
                    locking: storage.singleUpsertStatement(record, notice: notice, lock: nil))
            }
            recorder.changed(record.collection, record.id)
            if notice != nil { recorder.announced(record.collection, record.id) }
        }

        /// Removes the record with `id`; returns whether there was one.
        @discardableResult
        public func delete(collection: String, id: String) throws -> Bool {
            try lockEntity(collection: collection, id: id)
            let removed =
                try changing(
                    "delete \(collection)/\(id)",
                    "DELETE FROM \(unescaped: quoted).records WHERE collection = \(collection) AND id = \(id)") > 0
            if removed { recorder.deleted(collection, id) }
            return removed
        }

        /// Removes every record of `collection`.
        func deleteAll(collection: String) throws {
            _ = try changing(
                "delete all of \(collection)",
                "DELETE FROM \(unescaped: quoted).records WHERE collection = \(collection)")
            recorder.cleared(collection)
        }

        /// The sync states of the records of `ids` that exist, in one query.
        public func syncStates(collection: String, ids: [String]) throws -> [String: SyncState] {
            guard !ids.isEmpty else { return [:] }
            try lockEntities(
                ids.compactMap { PostgresEntityLock(schema: storage.schema, collection: collection, id: $0) })
            let rows = try execute(
                "read the sync states of \(ids.count) \(collection) records",
                "SELECT id, sync_state FROM \(unescaped: quoted).records WHERE collection = \(collection) AND id = ANY(\(ids))"
            )
            var states: [String: SyncState] = [:]
            for row in rows {
                let (id, text) = try PostgresStorage.storageErrors("cannot read a sync state") {
                    try row.decode((String, String).self)
                }
                guard let state = SyncState(rawValue: text) else {
                    throw DepotError(.storage, "\(collection)/\(id) has an unknown sync state \(text.debugDescription)")
                }
                states[id] = state
            }
            return states
        }

        /// Every record of `collection` (tombstones included), by id.
        public func records(collection: String) throws -> [StoredRecord] {
            try execute(
                "list \(collection)",
                "SELECT \(unescaped: PostgresStorage.recordColumns) FROM \(unescaped: quoted).records WHERE collection = \(collection) ORDER BY id ASC"
            ).map(PostgresStorage.record)
        }

        /// The outbox entries `query` selects, as this transaction sees them, by sequence.
        public func outbox(_ query: OutboxQuery) throws -> [OutboxEntry] {
            try execute("read the outbox", storage.outboxQuery("SELECT \(PostgresStorage.outboxColumns)", query))
                .map(PostgresStorage.outboxEntry)
        }
    }
#endif
