#if Postgres
    import Depot
    import Foundation
    import NIOCore
    import PostgresNIO

    /// One write transaction of a ``PostgresStorage``, on one connection: the `StorageTransaction`
    /// Depot's synchronous write rules run on (each call blocks its thread, one of the store's own,
    /// until the server answers), and the app's own SQL beside them (``query(_:)``).
    ///
    /// Made by ``PostgresStorage/withTransaction(_:)`` and by the store's own writes; valid only
    /// until its body returns.
    ///
    /// Before its first read or write of an entity, the transaction takes the entity's advisory
    /// lock (one per collection and id), held until it ends: a transaction that reads, decides and
    /// writes an entity runs alone on it, on every replica, and transactions of other entities run
    /// beside it. Two transactions that wait for each other's locks (PostgreSQL detects it) are
    /// rolled back, and the store's own writes run again.
    ///
    /// Statements whose answer the body does not need (`BEGIN`, a lock, an upsert) are
    /// sent without waiting: postgres-nio runs a connection's statements in order, so a later read
    /// sees them, and the commit waits for them all (the first that failed fails the transaction).
    public final class PostgresTransaction: Sendable {
        let storage: PostgresStorage
        let connection: PostgresConnection
        /// What the transaction wrote, told to observers (and other replicas) once it commits.
        let recorder: ChangeRecorder
        /// False once the body returned: a transaction kept past it refuses every call.
        private let live = LockedValue(true)
        /// The locks the transaction holds or asked for: the schema's (in that measurement mode,
        /// still to take with the first statement) or its entities' (``PostgresEntityLock``).
        private let locks: LockedValue<Locks>
        /// Upserts of rows no lock guards (``PostgresEntityLock/unlockedCollections``), kept until
        /// the commit (the last replaces an earlier one of the same row): their row is every
        /// writer's, and its row lock is then held for the commit only.
        private let deferred = LockedValue<[PostgresStorage.RecordKey: (what: String, query: PostgresQuery)]>([:])
        /// The statements sent without waiting for their answer, in the order sent.
        private let unanswered = LockedValue<[(what: String, answer: EventLoopFuture<PostgresQueryResult>)]>([])

        init(storage: PostgresStorage, connection: PostgresConnection, recorder: ChangeRecorder) {
            locks = LockedValue(Locks(schemaPending: storage.writeLocking == .schema))
            self.storage = storage
            self.connection = connection
            self.recorder = recorder
        }

        /// Ends the transaction's use: later calls throw.
        func close() { live.withLock { $0 = false } }

        /// Runs the app's own `query` in this transaction: it commits with Depot's writes, or
        /// neither does.
        ///
        /// ```swift
        /// try await storage.withTransaction { tx in
        ///     try await tx.query("INSERT INTO orders (id, total) VALUES (\(orderID), \(total))")
        ///     try await notes.create(note, in: tx)
        /// }
        /// ```
        ///
        /// - Parameter query: the SQL, with its values bound (postgres-nio's string interpolation).
        /// - Returns: the rows it returned.
        /// - Throws: postgres-nio's `PSQLError` when the server refuses it (the transaction then
        ///   rolls back when the body throws it on); `DepotError` `.storage` when the
        ///   transaction has ended.
        @discardableResult
        public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
            try checkLive()
            try takeLockIfPending()
            let future = storage.send(query, on: connection)
            do {
                return Array(try await future.get().rows)
            } catch {
                throw await earlierFailure() ?? error
            }
        }

        /// Runs `body` on one of the store's threads (where the synchronous calls may block).
        func onThread<Output: Sendable>(_ body: @escaping @Sendable () throws -> Output) async throws -> Output {
            try await storage.threads.runIfActive(body)
        }

        private func checkLive() throws {
            guard live.withLock({ $0 }) else {
                throw DepotError(.storage, "a Postgres transaction was used after its body returned")
            }
        }

        /// The rows `query` returns, waiting on this thread for the server.
        func execute(_ what: String, _ query: PostgresQuery) throws -> [PostgresRow] {
            Array(try answer(what, query).rows)
        }

        /// How many rows `query` changed, waiting on this thread for the server.
        func changing(_ what: String, _ query: PostgresQuery) throws -> Int {
            try answer(what, query).metadata.rows ?? 0
        }

        /// Sends `query` without waiting for its answer (a write whose result the body does not
        /// need); ``settle()`` waits for it. `locking` is the same write taking the schema's write
        /// lock first, sent instead when that lock is still to take (measurement mode `.schema`).
        func sendUnanswered(_ what: String, _ query: PostgresQuery, locking: PostgresQuery? = nil) throws {
            try checkLive()
            if let locking, takePendingLock() {
                unsettled("cannot \(what)", storage.send(locking, on: connection))
                return
            }
            try takeLockIfPending()
            unsettled("cannot \(what)", storage.send(query, on: connection))
        }

        /// Sends the schema's write lock, unless it was already asked for (measurement mode
        /// `.schema` only).
        private func takeLockIfPending() throws {
            guard takePendingLock() else { return }
            let lock: PostgresQuery = "SELECT pg_advisory_xact_lock(\(PostgresStorage.lockKey(storage.schema)))"
            unsettled("cannot take the write lock", storage.send(lock, on: connection))
        }

        /// True once: when the schema's write lock is still to take (the caller takes it).
        private func takePendingLock() -> Bool {
            locks.withLock { locks in
                defer { locks.schemaPending = false }
                return locks.schemaPending
            }
        }

        /// Takes the lock of `id` of `collection` unless the transaction holds it: sent without
        /// waiting, before the statement that touches the entity (postgres-nio runs a connection's
        /// statements in order, and each statement of a READ COMMITTED transaction sees what
        /// committed before it began, so that statement sees the last holder's writes).
        func lockEntity(collection: String, id: String, shared: Bool = false) throws {
            guard let lock = PostgresEntityLock(schema: storage.schema, collection: collection, id: id) else { return }
            try lockEntities([lock], shared: shared)
        }

        /// Takes the locks of `locks` the transaction does not hold yet, in one statement, in a
        /// fixed order (so two transactions taking the same set never wait for each other).
        /// `shared`: read locks, which other readers share (a write of the entity waits for them).
        func lockEntities(_ wanted: [PostgresEntityLock], shared: Bool = false) throws {
            try checkLive()
            let missing = takeEntityLocks(wanted, shared: shared)
            guard !missing.isEmpty else { return }
            unsettled(
                "cannot lock \(missing.count == 1 ? "an entity" : "\(missing.count) entities")",
                storage.send(PostgresEntityLock.statement(missing, shared: shared), on: connection))
        }

        /// The locks of `wanted` the transaction does not hold yet (sorted, once each), counted
        /// as held from now on: the caller takes them. None outside the `.entity` mode.
        func takeEntityLocks(_ wanted: [PostgresEntityLock], shared: Bool = false) -> [PostgresEntityLock] {
            guard storage.writeLocking == .entity else { return [] }
            return locks.withLock { locks in
                var missing: [PostgresEntityLock] = []
                for lock in Set(wanted).sorted() where !locks.held.contains(lock) {
                    if shared {
                        guard locks.shared.insert(lock).inserted else { continue }
                    } else {
                        locks.held.insert(lock)
                    }
                    missing.append(lock)
                }
                return missing
            }
        }

        /// Keeps the upsert of `record`, a row no lock guards, for ``sendDeferred()``.
        func deferUpsert(_ what: String, _ query: PostgresQuery, of key: PostgresStorage.RecordKey) throws {
            try checkLive()
            deferred.withLock { $0[key] = (what, query) }
        }

        /// Sends the upserts kept for the commit (before the commit, or before a read of their rows).
        func sendDeferred() throws {
            let kept = deferred.withLock { kept in
                defer { kept = [:] }
                return kept
            }
            for (_, (what, query)) in kept.sorted(by: {
                ($0.key.collection, $0.key.id) < ($1.key.collection, $1.key.id)
            }) {
                try sendUnanswered(what, query)
            }
        }

        /// Counts the entities of `entries` as locked: a claim took their locks in its statement.
        func holdEntities(of entries: [OutboxEntry]) {
            guard storage.writeLocking == .entity else { return }
            let schema = storage.schema
            locks.withLock { locks in
                for entry in entries {
                    if let lock = PostgresEntityLock(schema: schema, collection: entry.collection, id: entry.entityID) {
                        locks.held.insert(lock)
                    }
                }
            }
        }

        /// What the transaction locked.
        struct Locks {
            /// The schema's write lock is still to take (measurement mode `.schema`).
            var schemaPending: Bool
            /// The entity locks held alone.
            var held: Set<PostgresEntityLock> = []
            /// The entity locks shared with other readers.
            var shared: Set<PostgresEntityLock> = []
        }

        /// Sends `BEGIN` without waiting.
        func begin() throws {
            try checkLive()
            unsettled("cannot begin a transaction", storage.send("BEGIN", on: connection))
        }

        /// Keeps `answer` for ``settle()``.
        private func unsettled(_ what: String, _ answer: EventLoopFuture<PostgresQueryResult>) {
            unanswered.withLock { $0.append((what, answer)) }
        }

        /// Waits for every statement sent without waiting; throws the first one's failure.
        func settle() async throws {
            let sent = unanswered.withLock { sent in
                defer { sent = [] }
                return sent
            }
            for (what, answer) in sent {
                try await PostgresStorage.storageErrors(what) { _ = try await answer.get() }
            }
        }

        /// `query`'s answer, waiting on this thread; when it fails because an earlier statement
        /// sent without waiting failed (the server refuses every statement of a failed
        /// transaction), that earlier failure.
        private func answer(_ what: String, _ query: PostgresQuery) throws -> PostgresQueryResult {
            try checkLive()
            try takeLockIfPending()
            let future = storage.send(query, on: connection)
            do {
                return try PostgresStorage.storageErrors("cannot \(what)") { try future.wait() }
            } catch {
                let earlier = unanswered.withLock { $0 }
                for (earlierWhat, answer) in earlier {
                    do { _ = try answer.wait() } catch { throw PostgresStorage.wrap(error, earlierWhat) }
                }
                throw error
            }
        }

        /// The failure of the first statement sent without waiting that failed, if any.
        private func earlierFailure() async -> (any Error)? {
            for (what, answer) in unanswered.withLock({ $0 }) {
                do { _ = try await answer.get() } catch { return PostgresStorage.wrap(error, what) }
            }
            return nil
        }
    }
#endif
