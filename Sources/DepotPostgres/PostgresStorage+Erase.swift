#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresStorage: ErasableStorage {
        /// Counts what erasing would lose, in one read: outbox entries pending and rejected,
        /// records whose sync state is not `.synced`.
        ///
        /// - Throws: `DepotError` `.storage` when the store cannot be read, or is closed or erased.
        public func unsyncedSummary() async throws -> UnsyncedSummary {
            try await unsyncedSummary(rows("summarize unsynced work", summaryQuery))
        }

        private var summaryQuery: PostgresQuery {
            """
            SELECT
                (SELECT COUNT(*) FROM \(unescaped: quoted).outbox WHERE NOT rejected),
                (SELECT COUNT(*) FROM \(unescaped: quoted).outbox WHERE rejected),
                (SELECT COUNT(*) FROM \(unescaped: quoted).records WHERE sync_state != 'synced')
            """
        }

        private func unsyncedSummary(_ rows: [PostgresRow]) throws -> UnsyncedSummary {
            guard let row = rows.first else {
                return UnsyncedSummary(pendingEntries: 0, rejectedEntries: 0, unsyncedRecords: 0)
            }
            let (pending, rejected, unsynced) = try Self.storageErrors("cannot summarize unsynced work") {
                try row.decode((Int64, Int64, Int64).self)
            }
            return UnsyncedSummary(
                pendingEntries: Int(pending), rejectedEntries: Int(rejected), unsyncedRecords: Int(unsynced))
        }

        /// Erases the store: drops its schema (every record and outbox entry, for every replica)
        /// and closes this object. It refuses, erasing nothing, while the store holds writes the
        /// server has not accepted, unless `force` is true. The check and the drop are one
        /// transaction that first locks the store's tables against every write (`LOCK TABLE … IN
        /// EXCLUSIVE MODE`), so nothing commits between them. Other objects on the schema fail
        /// from then on.
        ///
        /// - Parameter force: erase even when writes would be lost.
        /// - Throws: `DepotError` `.unsyncedWrites` (nothing erased) when `force` is false and
        ///   ``unsyncedSummary()`` is not empty; `.storage` when the store is closed or erased,
        ///   or the server fails.
        public func erase(force: Bool) async throws {
            let (summaryQuery, name) = (self.summaryQuery, "the Postgres store \(schema)")
            try await write("erase \(name)") { tx in
                _ = try tx.changing(
                    "lock \(name)",
                    "LOCK TABLE \(unescaped: self.quoted).records, \(unescaped: self.quoted).outbox IN EXCLUSIVE MODE")
                if !force {
                    let summary = try self.unsyncedSummary(tx.execute("summarize unsynced work", summaryQuery))
                    if let refusal = summary.erasureRefusal(of: name) { throw refusal }
                }
                _ = try tx.changing("drop \(name)", "DROP SCHEMA \(unescaped: self.quoted) CASCADE")
            }
            lifecycle.withLock { $0 = .erased }
            await close()
        }

        /// Drops the schema if it is there, whatever it holds (tests' clean-up).
        func dropSchema() async throws {
            try ensureOpen("cannot drop \(schema)")
            _ = try await Self.storageErrors("cannot drop \(schema)") {
                try await leasing("cannot drop \(schema)") { connection in
                    try await connection.collect("DROP SCHEMA IF EXISTS \(unescaped: quoted) CASCADE", logger: logger)
                }
            }
        }
    }
#endif
