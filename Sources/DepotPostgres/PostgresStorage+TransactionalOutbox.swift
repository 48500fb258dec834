#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    extension PostgresStorage {
        /// Runs `body` as one PostgreSQL transaction that carries the app's own SQL
        /// (``PostgresTransaction/query(_:)``) beside Depot's writes (a repository's
        /// `create(_:in:)`, `update(_:in:)`, `delete(id:in:)`): both commit, or neither does.
        /// After the commit, the writes' outbox entries are forwarded once, under their
        /// idempotency keys, by whichever forwarder runs on any replica.
        ///
        /// ```swift
        /// try await storage.withTransaction { tx in
        ///     try await tx.query("INSERT INTO orders (id, note) VALUES (\(orderID), \(note.id))")
        ///     try await notes.create(note, in: tx)
        /// }
        /// ```
        ///
        /// Depot's writes in it take the lock of each entity they touch, held until the transaction
        /// ends: keep it short, and write to the store only through `tx` inside it (a write of the
        /// same entity through the store itself would wait for the lock the body holds). The app's
        /// own SQL takes no lock of Depot's. A transaction PostgreSQL fails as a deadlock is not run
        /// again: the error (`.storage`) is the body's to handle.
        ///
        /// - Parameter body: the transaction's work; throw to roll everything back.
        /// - Returns: what `body` returned.
        /// - Throws: what `body` threw (nothing committed), or `DepotError` `.storage` when the
        ///   server fails or the store is closed.
        @discardableResult
        public func withTransaction<Output: Sendable>(
            _ body: @Sendable (PostgresTransaction) async throws -> Output
        ) async throws -> Output {
            let output = try await write("run a transaction", async: body)
            OutboxCoordinator.notify(self)
            return output
        }
    }

    extension CRUDNetworkingStorageRepository {
        /// Creates `entity` locally inside `transaction` (stored `.created` and recorded in the
        /// outbox, as a local-first create is): it commits with the transaction's other work.
        ///
        /// - Throws: `DepotError` `.invalidRequest` when the repository's storage is not the
        ///   transaction's store; `.conflict` when the id is taken.
        @discardableResult
        public func create(_ entity: Entity, in transaction: PostgresTransaction) async throws -> Entity {
            try check(transaction)
            return try await transaction.onThread { try self.create(entity, in: transaction as any StorageTransaction) }
        }

        /// Updates `entity` locally inside `transaction` (stored unsynced and recorded in the
        /// outbox, as a local-first update is).
        ///
        /// - Throws: `DepotError` `.invalidRequest` when the repository's storage is not the
        ///   transaction's store.
        @discardableResult
        public func update(_ entity: Entity, in transaction: PostgresTransaction) async throws -> Entity {
            try check(transaction)
            return try await transaction.onThread { try self.update(entity, in: transaction as any StorageTransaction) }
        }

        /// Deletes the entity with `id` locally inside `transaction` (a tombstone and an outbox
        /// entry, as a local-first delete leaves).
        ///
        /// - Throws: `DepotError` `.invalidRequest` when the repository's storage is not the
        ///   transaction's store; `.notFound` when there is no such entity.
        public func delete(id: Entity.ID, in transaction: PostgresTransaction) async throws {
            try check(transaction)
            try await transaction.onThread { try self.delete(id: id, in: transaction as any StorageTransaction) }
        }

        private func check(_ transaction: PostgresTransaction) throws {
            guard (storage as AnyObject) === transaction.storage else {
                throw DepotError(
                    .invalidRequest, "the repository's storage is not the store of the transaction it writes in")
            }
        }
    }
#endif
