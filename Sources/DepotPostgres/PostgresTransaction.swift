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
    public final class PostgresTransaction: Sendable {
        let storage: PostgresStorage
        let connection: PostgresConnection
        /// What the transaction wrote, told to observers (and other replicas) once it commits.
        let recorder: ChangeRecorder
        /// False once the body returned: a transaction kept past it refuses every call.
        private let live = LockedValue(true)

        init(storage: PostgresStorage, connection: PostgresConnection, recorder: ChangeRecorder) {
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
            let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: storage.logger)
            return Array(try await future.get().rows)
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
            try checkLive()
            return try PostgresStorage.storageErrors("cannot \(what)") {
                let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: storage.logger)
                return Array(try future.wait().rows)
            }
        }

        /// How many rows `query` changed, waiting on this thread for the server.
        func changing(_ what: String, _ query: PostgresQuery) throws -> Int {
            try checkLive()
            return try PostgresStorage.storageErrors("cannot \(what)") {
                let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: storage.logger)
                return try future.wait().metadata.rows ?? 0
            }
        }
    }
#endif
