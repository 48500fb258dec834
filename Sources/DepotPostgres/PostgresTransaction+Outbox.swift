#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresTransaction {
        /// The outbox entries of one entity (rejected ones included), oldest first.
        public func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
            try execute(
                "read the outbox of \(collection)/\(entityID)",
                """
                SELECT \(unescaped: PostgresStorage.outboxColumns) FROM \(unescaped: storage.quoted).outbox
                WHERE collection = \(collection) AND entity_id = \(entityID) ORDER BY sequence
                """
            ).map(PostgresStorage.outboxEntry)
        }

        /// The outbox entry with `sequence`, or nil.
        public func outboxEntry(sequence: Int64) throws -> OutboxEntry? {
            try execute(
                "read outbox entry \(sequence)",
                """
                SELECT \(unescaped: PostgresStorage.outboxColumns) FROM \(unescaped: storage.quoted).outbox
                WHERE sequence = \(sequence)
                """
            ).first.map(PostgresStorage.outboxEntry)
        }

        /// Adds `entry` at the end of the outbox and returns its new sequence (an identity that
        /// never repeats).
        @discardableResult
        public func appendOutbox(_ entry: OutboxEntry) throws -> Int64 {
            recorder.outbox()
            let values = try PostgresStorage.storageErrors("cannot add to the outbox") {
                try PostgresStorage.outboxValues(entry)
            }
            let rows = try execute(
                "add to the outbox",
                """
                INSERT INTO \(unescaped: storage.quoted).outbox (collection, entity_id, operation, payload,
                    idempotency_key, attempts, failures, next_attempt, last_error, rejected, rejected_status,
                    rejected_body, rejected_message, lease_owner, lease_expiry)
                VALUES (\(entry.collection), \(entry.entityID), \(entry.operation.rawValue), \(values.payload),
                    \(entry.idempotencyKey), \(entry.attempts), \(entry.failures), \(values.nextAttempt),
                    \(entry.lastError), \(entry.isRejected), \(entry.rejection?.status), \(entry.rejection?.body),
                    \(entry.rejection?.message), \(entry.lease?.owner), \(values.leaseExpiry))
                RETURNING sequence
                """)
            guard let row = rows.first else { throw DepotError(.storage, "cannot add to the outbox: no sequence") }
            return try PostgresStorage.storageErrors("cannot read a new outbox sequence") { try row.decode(Int64.self) }
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
                    lease_expiry = \(values.leaseExpiry)
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
        /// is free at `now` (the store's time; who holds a live lease does not matter), in one
        /// `UPDATE … RETURNING` over the rows locked with `FOR UPDATE SKIP LOCKED` (a row another
        /// transaction holds is skipped, never waited for). Returns them in the order of
        /// `sequences` (once each).
        public func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry] {
            guard !sequences.isEmpty else { return [] }
            let claimed = try execute(
                "claim \(sequences.count) outbox entries",
                """
                UPDATE \(unescaped: storage.quoted).outbox
                SET attempts = attempts + 1, lease_owner = \(lease.owner),
                    lease_expiry = \(lease.expiry.timeIntervalSince1970)
                WHERE sequence IN (
                    SELECT sequence FROM \(unescaped: storage.quoted).outbox
                    WHERE NOT rejected AND sequence = ANY(\(sequences))
                    AND (lease_owner IS NULL OR lease_expiry IS NULL
                        OR lease_expiry <= \(now.timeIntervalSince1970))
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: PostgresStorage.outboxColumns)
                """
            ).map(PostgresStorage.outboxEntry)
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

        /// The sequences of `sequences` leased by `owner`, in one query.
        public func heldOutboxLeases(sequences: [Int64], owner: String) throws -> Set<Int64> {
            guard !sequences.isEmpty else { return [] }
            let rows = try execute(
                "read \(sequences.count) outbox leases",
                """
                SELECT sequence FROM \(unescaped: storage.quoted).outbox
                WHERE lease_owner = \(owner) AND sequence = ANY(\(sequences))
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
