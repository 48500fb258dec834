#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresStorage {
        /// Adds a record; throws `.conflict` if the collection already has its id.
        public func insert(_ record: StoredRecord) async throws {
            try await write("insert into \(record.collection)") { tx in try tx.insert(record) }
        }

        /// Adds or replaces every record, in one transaction.
        public func upsert(_ records: [StoredRecord]) async throws {
            let encoded = try Self.storageErrors("cannot encode \(records.count) records") {
                try records.map(EncodedRecord.init)
            }
            try await upsert(encoded: encoded)
        }

        /// Adds or replaces every record, in one transaction, from JSON text already written: up to
        /// ``upsertRowsPerStatement`` records in one statement, one round trip (see
        /// ``upsertStatement(_:notice:)``).
        public func upsert(encoded records: [EncodedRecord]) async throws {
            // Sequential upserts of one id leave its last record.
            var last: [RecordKey: Int] = [:]
            for (index, record) in records.enumerated() { last[RecordKey(record.collection, record.id)] = index }
            let rows = records.indices.filter { last[RecordKey(records[$0].collection, records[$0].id)] == $0 }
                .map { records[$0] }
            guard !rows.isEmpty else { return }
            guard rows.count > Self.upsertRowsPerStatement else {
                try ensureOpen("cannot upsert \(rows.count) records")
                let recorder = ChangeRecorder()
                for record in rows { recorder.changed(record.collection, record.id) }
                let statement = upsertStatement(rows, notice: changeNotice(recorder))
                // Its entity locks are taken in one fixed order, but a transaction holding one of them
                // may wait for another: PostgreSQL then fails one of the two, and this one runs again.
                var failures = 0
                while true {
                    do {
                        try await Self.storageErrors("cannot upsert \(rows.count) records") {
                            try await leasing("cannot upsert \(rows.count) records") { connection in
                                _ = try await send(statement, on: connection).get()
                            }
                        }
                        break
                    } catch  where Self.isDeadlock(error) && failures < Self.deadlockRetries {
                        failures += 1
                    }
                }
                recorder.publish(for: self)
                return
            }
            try await write("upsert \(rows.count) records") { tx in
                // Every entity's lock first, in one statement, in a fixed order.
                try tx.lockEntities(
                    rows.compactMap { PostgresEntityLock(schema: self.schema, collection: $0.collection, id: $0.id) })
                for start in stride(from: 0, to: rows.count, by: Self.upsertRowsPerStatement) {
                    let chunk = rows[start..<min(start + Self.upsertRowsPerStatement, rows.count)]
                    var query = PostgresQuery(
                        unsafeSQL: "INSERT INTO \(self.quoted).records (\(Self.recordWriteColumns)) VALUES ")
                    for (offset, record) in chunk.enumerated() {
                        if offset > 0 { query.sql += ", " }
                        Self.appendRecordRow(record, to: &query)
                        tx.recorder.changed(record.collection, record.id)
                    }
                    query.sql += Self.recordConflictUpdate
                    try tx.sendUnanswered("upsert \(chunk.count) records", query)
                }
            }
        }

        /// The most records one upsert statement carries (9 values each, under the protocol's
        /// 65,535 bound values).
        static let upsertRowsPerStatement = 1_000

        /// One statement that is a whole write transaction (its own implicit transaction): the
        /// locks (every record's entity lock, in a fixed order; the schema's write lock in that
        /// measurement mode), then every row of `records` added or replaced, then the change
        /// notice. The locks are taken before the first row is written (the rows are read through
        /// them); `INSERT … ON CONFLICT` decides on the latest committed rows, so the statement's
        /// snapshot, taken before the locks, does not matter.
        ///
        /// One record under at most one lock is the lean form (``singleUpsertStatement(_:notice:lock:)``).
        ///
        /// - Parameter locks: the entity locks to take (`.entity` mode); nil for every record's.
        func upsertStatement(
            _ records: [EncodedRecord], notice: String?, locks: [PostgresEntityLock]? = nil
        ) -> PostgresQuery {
            if records.count == 1 {
                let own = PostgresEntityLock(schema: schema, collection: records[0].collection, id: records[0].id)
                let wanted = locks ?? (own.map { [$0] } ?? [])
                if wanted.count <= 1 { return singleUpsertStatement(records[0], notice: notice, lock: wanted.first) }
            }
            var query = PostgresQuery(unsafeSQL: "WITH ")
            var locked = false
            switch writeLocking {
            case .schema:
                query.binds.append(Self.lockKey(schema))
                query.sql += "lock AS MATERIALIZED (SELECT pg_advisory_xact_lock($1) AS held), "
                locked = true
            case .entity:
                let wanted = Set(
                    locks
                        ?? records.compactMap {
                            PostgresEntityLock(schema: schema, collection: $0.collection, id: $0.id)
                        }
                ).sorted()
                if !wanted.isEmpty {
                    query.binds.append(wanted.map(\.text))
                    query.sql +=
                        "lock AS MATERIALIZED (SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) AS held "
                        + "FROM unnest($1::text[]) AS k), "
                    locked = true
                }
            case .none:
                break
            }
            query.sql +=
                "written AS (INSERT INTO \(quoted).records (\(Self.recordWriteColumns)) SELECT v.* FROM (VALUES "
            for (offset, record) in records.enumerated() {
                if offset > 0 { query.sql += ", " }
                Self.appendRecordRow(record, to: &query)
            }
            query.sql += ") AS v (\(Self.recordWriteColumns))"
            if locked { query.sql += " CROSS JOIN lock" }
            query.sql += " WHERE TRUE" + Self.recordConflictUpdate + " RETURNING 1)"
            if let notice {
                query.binds.append(channel)
                query.binds.append(notice)
                let channelBind = query.binds.count - 1
                query.sql +=
                    " SELECT pg_notify($\(channelBind), $\(channelBind + 1)) FROM (SELECT count(*) FROM written) AS done"
            } else {
                query.sql += " SELECT count(*) FROM written"
            }
            return query
        }

        /// The upsert of one record as one plain `INSERT … SELECT … ON CONFLICT`: the lock (the
        /// schema's in that measurement mode, else `lock`, the entity's, when given) is the
        /// `SELECT`'s one-time filter, so it is taken before the row is written, and the notice
        /// rides on `RETURNING`. On PostgreSQL 15 this costs a third of the `WITH` form's extra time
        /// over a raw upsert (the `unnest` and `count` of the lock list were most of it).
        func singleUpsertStatement(_ record: EncodedRecord, notice: String?, lock: PostgresEntityLock?) -> PostgresQuery
        {
            var query = PostgresQuery(
                unsafeSQL: "INSERT INTO \(quoted).records (\(Self.recordWriteColumns)) SELECT ")
            Self.appendRecordRow(record, to: &query, parenthesized: false)
            switch writeLocking {
            case .schema:
                query.binds.append(Self.lockKey(schema))
                query.sql += " WHERE pg_advisory_xact_lock($\(query.binds.count))::text IS NOT NULL"
            case .entity:
                if let lock {
                    query.binds.append(lock.text)
                    query.sql +=
                        " WHERE pg_advisory_xact_lock(hashtextextended($\(query.binds.count), 0))::text IS NOT NULL"
                }
            case .none:
                break
            }
            endUpsert(&query, notice: notice)
            return query
        }

        /// A record's collection and id, as a key.
        struct RecordKey: Hashable {
            let collection: String
            let id: String
            init(_ collection: String, _ id: String) { (self.collection, self.id) = (collection, id) }
        }

        /// The record with `id`, or nil.
        public func fetch(collection: String, id: String) async throws -> StoredRecord? {
            try await rows(
                "fetch \(collection)/\(id)",
                "SELECT \(unescaped: Self.recordColumns) FROM \(unescaped: quoted).records WHERE collection = \(collection) AND id = \(id)"
            ).first.map(Self.record)
        }

        /// The records matching `criteria`: string filters and the deleted state narrow the rows
        /// in SQL, then `CriteriaEvaluator` applies every filter, the sort and the limit, so the
        /// answer is exactly the other stores' (their ordering of nulls, numbers and text, bools
        /// as integers).
        public func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
            try criteria.validate()
            var query: PostgresQuery =
                "SELECT \(unescaped: Self.recordColumns) FROM \(unescaped: quoted).records WHERE collection = \(collection)"
            if !criteria.includeDeleted { query.sql += " AND sync_state != 'deleted'" }
            for (key, value) in criteria.filters.sorted(by: { $0.key < $1.key }) {
                // A string matches only a string with the same text: `->` compares jsonb exactly.
                // (Rows kept as text, with no jsonb, are left to the evaluator.)
                guard case .string(let text) = value, !key.utf8.contains(0), !text.utf8.contains(0) else { continue }
                query.binds.append(key)
                let keyBind = query.binds.count
                query.binds.append(text)
                query.sql += " AND (object IS NULL OR object -> $\(keyBind) = to_jsonb($\(keyBind + 1)::text))"
            }
            let records = try await rows("query \(collection)", query).map(Self.record)
            return CriteriaEvaluator.apply(criteria, to: records)
        }

        /// Up to `limit` records in `states`, by id (bytewise), after `id`: one query on the
        /// `(collection, sync_state, id)` index.
        public func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
            async throws -> [StoredRecord]
        {
            guard !states.isEmpty, limit > 0 else { return [] }
            var query: PostgresQuery = """
                SELECT \(unescaped: Self.recordColumns) FROM \(unescaped: quoted).records
                WHERE collection = \(collection) AND sync_state = ANY(\(states.map(\.rawValue).sorted()))
                """
            if let id {
                query.binds.append(id)
                query.sql += " AND id > $\(query.binds.count)"
            }
            query.binds.append(limit)
            query.sql += " ORDER BY id ASC LIMIT $\(query.binds.count)"
            return try await rows("query \(collection) by sync state", query).map(Self.record)
        }

        /// Removes the record with `id`; returns whether there was one.
        @discardableResult
        public func delete(collection: String, id: String) async throws -> Bool {
            try await write("delete \(collection)/\(id)") { tx in try tx.delete(collection: collection, id: id) }
        }

        /// Removes every record of `collection`.
        public func deleteAll(collection: String) async throws {
            try await write("delete all of \(collection)") { tx in try tx.deleteAll(collection: collection) }
        }

        /// Runs `body` in one PostgreSQL transaction, on one of the store's threads, holding the
        /// lock of each entity it reads or writes from its first touch (``PostgresTransaction``):
        /// no other transaction of any replica interleaves on those entities; nothing is written
        /// if it throws. Two transactions that wait for each other are rolled back and `body`
        /// runs again, so it must do nothing but its work on the transaction.
        public func transaction<Output: Sendable>(
            _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
        ) async throws -> Output {
            try await write("run a transaction") { tx in try body(tx) }
        }

        /// The outbox entries `query` selects, by sequence.
        public func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] {
            try await rows("read the outbox", outboxQuery("SELECT \(Self.outboxColumns)", query)).map(Self.outboxEntry)
        }

        /// How many outbox entries `query` selects (its limit ignored).
        public func outboxCount(_ query: OutboxQuery) async throws -> Int {
            var unlimited = query
            unlimited.limit = nil
            guard let row = try await rows("count the outbox", outboxQuery("SELECT COUNT(*)", unlimited)).first else {
                return 0
            }
            return try Self.storageErrors("cannot count the outbox") { Int(try row.decode(Int64.self)) }
        }

        /// The SQL of `query` over the outbox.
        func outboxQuery(_ select: String, _ query: OutboxQuery) -> PostgresQuery {
            var sql: PostgresQuery = "\(unescaped: select) FROM \(unescaped: quoted).outbox WHERE TRUE"
            switch query.selection {
            case .pending: sql.sql += " AND NOT rejected"
            case .rejected: sql.sql += " AND rejected"
            case .all: break
            }
            if let collections = query.collections {
                sql.binds.append(collections.sorted())
                sql.sql += " AND collection = ANY($\(sql.binds.count))"
            }
            if let entityID = query.entityID {
                sql.binds.append(entityID)
                sql.sql += " AND entity_id = $\(sql.binds.count)"
            }
            if let after = query.after {
                sql.binds.append(after)
                sql.sql += " AND sequence > $\(sql.binds.count)"
            }
            if !select.contains("COUNT") { sql.sql += " ORDER BY sequence ASC" }
            if let limit = query.limit {
                sql.binds.append(max(limit, 0))
                sql.sql += " LIMIT $\(sql.binds.count)"
            }
            return sql
        }
    }
#endif
