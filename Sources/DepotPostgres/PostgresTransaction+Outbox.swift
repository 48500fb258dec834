#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresTransaction {
        /// The outbox entries of one entity (rejected ones included), oldest first.
        public func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
            try lockEntity(collection: collection, id: entityID)
            return try execute(
                "read the outbox of \(collection)/\(entityID)",
                """
                SELECT \(unescaped: PostgresStorage.outboxColumns) FROM \(unescaped: storage.quoted).outbox
                WHERE collection = \(collection) AND entity_id = \(entityID) ORDER BY sequence
                """
            ).map(PostgresStorage.outboxEntry)
        }

        /// The outbox entry with `sequence`, or nil. Its row stays locked until the transaction
        /// ends (`FOR UPDATE`): what the body decides from it is not undone by a claim meanwhile
        /// (a claim skips a locked row), and a claim that holds it is waited for.
        public func outboxEntry(sequence: Int64) throws -> OutboxEntry? {
            try execute(
                "read outbox entry \(sequence)",
                """
                SELECT \(unescaped: PostgresStorage.outboxColumns) FROM \(unescaped: storage.quoted).outbox
                WHERE sequence = \(sequence) FOR UPDATE
                """
            ).first.map(PostgresStorage.outboxEntry)
        }

        /// Adds `entry` at the end of the outbox and returns its new sequence (an identity that
        /// never repeats).
        @discardableResult
        public func appendOutbox(_ entry: OutboxEntry) throws -> Int64 {
            try lockEntity(collection: entry.collection, id: entry.entityID)
            recorder.outbox()
            var query = PostgresQuery(unsafeSQL: "")
            try appendOutboxInsert(entry, to: &query, selecting: "VALUES (", until: ")")
            // The outbox's change notice rides with the entry (delivered if the transaction commits).
            let announcing = announcingOutbox(&query)
            query.sql += " RETURNING sequence" + announcing
            guard let row = try execute("add to the outbox", query).first else {
                throw DepotError(.storage, "cannot add to the outbox: no sequence")
            }
            if !announcing.isEmpty { recorder.announcedOutbox() }
            return try PostgresStorage.storageErrors("cannot read a new outbox sequence") { try row.decode(Int64.self) }
        }

        /// Adds `entry` when its entity has no entry, else returns the entity's last entry: one
        /// statement, one round trip, calling the schema's `append_outbox_if_first` (its look-up
        /// and insert planned once per connection; under the entity's lock, no other write of the
        /// entity comes between them). An added entry sends the outbox's change notice with it.
        public func appendOutboxIfFirst(_ entry: OutboxEntry) throws -> OutboxAppend {
            try lockEntity(collection: entry.collection, id: entry.entityID)
            var query = PostgresQuery(unsafeSQL: "")
            try appendOutboxValues(entry, to: &query)
            let notice = storage.outboxNotice
            query.binds.append(notice.map { _ in storage.channel })
            query.binds.append(notice)
            let types = [
                "text", "text", "text", "text", "text", "integer", "integer", "double precision", "text", "boolean",
                "integer", "bytea", "text", "text", "double precision", "text", "text", "text",
            ]
            let arguments = types.enumerated().map { "$\($0.offset + 1)::\($0.element)" }.joined(separator: ", ")
            let columns = PostgresStorage.outboxColumns.split(separator: ",")
                .map { "(f.entry).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }
                .joined(separator: ", ")
            query.sql =
                "SELECT \(columns), f.added FROM \(storage.quoted).append_outbox_if_first(\(arguments)) AS f"
            // One row: the added entry (only its sequence is read) or the entity's last entry,
            // then whether it was added (column 17, after ``PostgresStorage/outboxColumns``).
            guard let row = try execute("add to the outbox", query).first else {
                throw DepotError(.storage, "cannot add to the outbox: no row came back")
            }
            let added = try PostgresStorage.storageErrors("cannot read a new outbox entry") {
                try row.makeRandomAccess()[17].decode(Bool.self)
            }
            guard added else { return .behind(try PostgresStorage.outboxEntry(row)) }
            recorder.outbox()
            if notice != nil { recorder.announcedOutbox() }
            return .appended(
                sequence: try PostgresStorage.storageErrors("cannot read a new outbox sequence") {
                    try row.decode(Int64.self)
                })
        }

        /// `, pg_notify(…)::text` sending the outbox's change notice, its values bound to `query`;
        /// empty when there is no notice. The caller counts it announced once the statement ran.
        private func announcingOutbox(_ query: inout PostgresQuery) -> String {
            guard let notice = storage.outboxNotice else { return "" }
            query.binds.append(storage.channel)
            query.binds.append(notice)
            return ", pg_notify($\(query.binds.count - 1), $\(query.binds.count))::text"
        }

        /// Appends `INSERT INTO outbox (…) <selecting>$1, $2, …<until>` with `entry`'s values (all
        /// but the sequence) to `query`.
        private func appendOutboxInsert(
            _ entry: OutboxEntry, to query: inout PostgresQuery, selecting: String, until: String
        ) throws {
            let first = query.binds.count + 1
            try appendOutboxValues(entry, to: &query)
            query.sql += """
                INSERT INTO \(storage.quoted).outbox (collection, entity_id, operation, payload,
                    idempotency_key, attempts, failures, next_attempt, last_error, rejected, rejected_status,
                    rejected_body, rejected_message, lease_owner, lease_expiry, account)
                \(selecting)\((first..<first + 16).map { "$\($0)" }.joined(separator: ", "))\(until)
                """
        }

        /// Binds `entry`'s 16 values (all but the sequence, in the outbox's column order) to `query`.
        private func appendOutboxValues(_ entry: OutboxEntry, to query: inout PostgresQuery) throws {
            let values = try PostgresStorage.storageErrors("cannot add to the outbox") {
                try PostgresStorage.outboxValues(entry)
            }
            query.binds.append(entry.collection)
            query.binds.append(entry.entityID)
            query.binds.append(entry.operation.rawValue)
            query.binds.append(values.payload)
            query.binds.append(entry.idempotencyKey)
            query.binds.append(entry.attempts)
            query.binds.append(entry.failures)
            query.binds.append(values.nextAttempt)
            query.binds.append(entry.lastError)
            query.binds.append(entry.isRejected)
            query.binds.append(entry.rejection?.status)
            try query.binds.append(entry.rejection?.body)
            query.binds.append(entry.rejection?.message)
            query.binds.append(entry.lease?.owner)
            query.binds.append(values.leaseExpiry)
            query.binds.append(entry.account)
        }

        /// Replaces the outbox entry with the same sequence; returns whether there was one.
        @discardableResult
        public func replaceOutbox(_ entry: OutboxEntry) throws -> Bool {
            recorder.outbox()
            let values = try PostgresStorage.storageErrors("cannot change outbox entry \(entry.sequence)") {
                try PostgresStorage.outboxValues(entry)
            }
            return try changing(
                "change outbox entry \(entry.sequence)",
                """
                UPDATE \(unescaped: storage.quoted).outbox SET collection = \(entry.collection),
                    entity_id = \(entry.entityID), operation = \(entry.operation.rawValue),
                    payload = \(values.payload), idempotency_key = \(entry.idempotencyKey),
                    attempts = \(entry.attempts), failures = \(entry.failures), next_attempt = \(values.nextAttempt),
                    last_error = \(entry.lastError), rejected = \(entry.isRejected),
                    rejected_status = \(entry.rejection?.status), rejected_body = \(entry.rejection?.body),
                    rejected_message = \(entry.rejection?.message), lease_owner = \(entry.lease?.owner),
                    lease_expiry = \(values.leaseExpiry), account = \(entry.account)
                WHERE sequence = \(entry.sequence)
                """) > 0
        }

        /// Removes the outbox entry with `sequence`; returns whether there was one.
        @discardableResult
        public func removeOutbox(sequence: Int64) throws -> Bool {
            recorder.outbox()
            return try changing(
                "remove outbox entry \(sequence)",
                "DELETE FROM \(unescaped: storage.quoted).outbox WHERE sequence = \(sequence)") > 0
        }

        /// Counts one more attempt on each entry of `sequences` still there and not refused, in
        /// one `UPDATE … RETURNING`, and returns them in the order of `sequences` (once each).
        public func markOutboxAttempted(sequences: [Int64]) throws -> [OutboxEntry] {
            guard !sequences.isEmpty else { return [] }
            let marked = try execute(
                "count an attempt on \(sequences.count) outbox entries",
                """
                UPDATE \(unescaped: storage.quoted).outbox SET attempts = attempts + 1
                WHERE NOT rejected AND sequence = ANY(\(sequences))
                RETURNING \(unescaped: PostgresStorage.outboxColumns)
                """
            ).map(PostgresStorage.outboxEntry)
            return Self.inOrder(marked, of: sequences)
        }

        /// The store's time for leases: the database server's `clock_timestamp()`, one clock for
        /// every replica whatever their own clocks say.
        public func leaseTime() throws -> Date {
            let rows = try execute(
                "read the database's clock", "SELECT extract(epoch FROM clock_timestamp())::double precision")
            guard let row = rows.first else { throw DepotError(.storage, "cannot read the database's clock: no row") }
            return Date(
                timeIntervalSince1970: try PostgresStorage.storageErrors("cannot read the database's clock") {
                    try row.decode(Double.self)
                })
        }

        /// Claims for `lease` every entry of `sequences` still there, not refused and whose lease
        /// is free at `now` (the store's time; lapsed, and not held by a claim of this process
        /// still open: ``OutboxLease/isFree(at:)``), in one
        /// `UPDATE … RETURNING` over the rows locked with `FOR UPDATE SKIP LOCKED` (a row another
        /// transaction holds is skipped, never waited for). An entry is claimed only with its
        /// entity's lock, tried, not waited for (`pg_try_advisory_xact_lock`): an entity another
        /// transaction writes is skipped too, and a local write of a claimed entity waits for the
        /// claim. Returns them in the order of `sequences` (once each).
        public func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry] {
            guard !sequences.isEmpty else { return [] }
            var query: PostgresQuery = """
                UPDATE \(unescaped: storage.quoted).outbox
                SET attempts = attempts + 1, lease_owner = \(lease.owner),
                    lease_expiry = \(lease.expiry.timeIntervalSince1970)
                WHERE sequence IN (
                    SELECT sequence FROM \(unescaped: storage.quoted).outbox
                    WHERE sequence = ANY(\(sequences)) AND CASE WHEN NOT rejected
                    AND (lease_owner IS NULL OR lease_expiry IS NULL
                        OR (lease_expiry <= \(now.timeIntervalSince1970)
                            AND NOT (lease_owner = ANY(\(OutboxClaim.openOwners)))))
                """
            // The entity's lock is tried only for an entry the claim would take (`CASE` keeps
            // the order), so no other entity is held back.
            if storage.writeLocking == .entity {
                // The open batches are read next (`claimOutboxInOrder`): their lock first, shared,
                // so the claim never waits for it while it holds an entity's.
                let batches = PostgresEntityLock.openBatches
                try lockEntity(collection: batches.collection, id: batches.id, shared: true)
                query.binds.append(PostgresEntityLock.prefix(schema: storage.schema))
                let text = PostgresEntityLock.outboxRowText(prefixBind: query.binds.count)
                query.sql += " THEN pg_try_advisory_xact_lock(hashtextextended(\(text), 0))"
            } else {
                query.sql += " THEN TRUE"
            }
            query.sql += """
                 ELSE FALSE END FOR UPDATE SKIP LOCKED)
                RETURNING \(PostgresStorage.outboxColumns)
                """
            let claimed = try execute("claim \(sequences.count) outbox entries", query).map(PostgresStorage.outboxEntry)
            holdEntities(of: claimed)
            return Self.inOrder(claimed, of: sequences)
        }

        /// Moves `owner`'s leases on `sequences` to `expiry` in one `UPDATE … RETURNING`; returns
        /// the sequences `owner` still holds.
        public func renewOutboxLeases(sequences: [Int64], owner: String, expiry: Date) throws -> Set<Int64> {
            guard !sequences.isEmpty else { return [] }
            let rows = try execute(
                "renew \(sequences.count) outbox leases",
                """
                UPDATE \(unescaped: storage.quoted).outbox SET lease_expiry = \(expiry.timeIntervalSince1970)
                WHERE lease_owner = \(owner) AND sequence = ANY(\(sequences))
                RETURNING sequence
                """)
            return try PostgresStorage.storageErrors("cannot read renewed outbox leases") {
                Set(try rows.map { try $0.decode(Int64.self) })
            }
        }

        /// The sequences of `sequences` leased by `owner`, in one query; their rows stay locked
        /// until the transaction ends (`FOR UPDATE`), so no claim takes them between this fencing
        /// check and the writes it allows.
        public func heldOutboxLeases(sequences: [Int64], owner: String) throws -> Set<Int64> {
            guard !sequences.isEmpty else { return [] }
            let rows = try execute(
                "read \(sequences.count) outbox leases",
                """
                SELECT sequence FROM \(unescaped: storage.quoted).outbox
                WHERE lease_owner = \(owner) AND sequence = ANY(\(sequences)) FOR UPDATE
                """)
            return try PostgresStorage.storageErrors("cannot read outbox leases") {
                Set(try rows.map { try $0.decode(Int64.self) })
            }
        }

        /// Clears the lease of every entry of `sequences` that `owner` holds; returns how many.
        @discardableResult
        public func releaseOutbox(sequences: [Int64], owner: String) throws -> Int {
            guard !sequences.isEmpty else { return 0 }
            return try changing(
                "release \(sequences.count) outbox entries",
                """
                UPDATE \(unescaped: storage.quoted).outbox SET lease_owner = NULL, lease_expiry = NULL
                WHERE lease_owner = \(owner) AND sequence = ANY(\(sequences))
                """)
        }

        /// `entries` in the order of `sequences`, each once.
        static func inOrder(_ entries: [OutboxEntry], of sequences: [Int64]) -> [OutboxEntry] {
            let bySequence = Dictionary(entries.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
            var seen = Set<Int64>()
            return sequences.compactMap { seen.insert($0).inserted ? bySequence[$0] : nil }
        }
    }
#endif
