#if Postgres
    import Depot
    import Foundation
    import Logging
    import NIOCore
    import PostgresNIO

    // Every database access goes through `rows` (a read on any pooled connection) or `write` (one
    // connection, BEGIN, the body on the store's threads taking its entities' advisory locks,
    // COMMIT or ROLLBACK). Both refuse once the store is closed and turn what fails into a `DepotError`.

    extension PostgresConnection {
        /// Runs `query` and collects every row (postgres-nio's future form, awaited).
        @discardableResult
        func collect(_ query: PostgresQuery, logger: Logger) async throws -> PostgresQueryResult {
            let future: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)
            return try await future.get()
        }
    }

    extension PostgresStorage {
        /// The schema's name, quoted for SQL.
        var quoted: String { "\"\(schema)\"" }

        /// Throws `.storage` unless the store is open.
        func ensureOpen(_ what: String) throws {
            switch lifecycle.withLock({ $0 }) {
            case .open: return
            case .closed: throw DepotError(.storage, "\(what): the Postgres store \(schema) is closed")
            case .erased: throw DepotError(.storage, "\(what): the Postgres store \(schema) was erased")
            }
        }

        /// The rows `query` returns, read on a pooled connection.
        func rows(_ what: String, _ query: PostgresQuery) async throws -> [PostgresRow] {
            try ensureOpen("cannot \(what)")
            return try await Self.storageErrors("cannot \(what)") {
                try await leasing("cannot \(what)") { connection in
                    Array(try await send(query, on: connection).get().rows)
                }
            }
        }

        /// Runs `body` in one write transaction on one connection: BEGIN, the body on one of the
        /// store's threads (taking the lock of each entity it touches first: every other
        /// transaction of that entity, in any process, waits for it), then (if it returned) this
        /// write's change notice and COMMIT, else ROLLBACK. After the commit the changes are told
        /// to this object's observers.
        ///
        /// Two transactions that each wait for a lock the other holds are a deadlock PostgreSQL
        /// ends by failing one (`40P01`): that one rolled back, so `body` runs again, in a new
        /// transaction, up to ``deadlockRetries`` times.
        func write<Output: Sendable>(
            _ what: String, _ body: @escaping @Sendable (PostgresTransaction) throws -> Output
        ) async throws -> Output {
            // Its own task, as SQLiteStorage's: a caller's cancellation must not abort a write
            // half-way, or an answer the server gave would not be stored.
            try await Task {
                var failures = 0
                while true {
                    do {
                        return try await write(what) { transaction in
                            try await transaction.onThread { try body(transaction) }
                        }
                    } catch  where Self.isDeadlock(error) && failures < Self.deadlockRetries {
                        failures += 1
                    }
                }
            }.value
        }

        /// How many times a transaction PostgreSQL failed as a deadlock runs again.
        static let deadlockRetries = 10

        /// Whether `error` is PostgreSQL's `deadlock_detected` (`40P01`), however wrapped.
        static func isDeadlock(_ error: any Error) -> Bool {
            var current: (any Error)? = error
            while let error = current {
                if let error = error as? PSQLError { return error.serverInfo?[.sqlState] == "40P01" }
                if let failure = error as? BodyFailure {
                    current = failure.error
                } else if let error = error as? DepotError {
                    current = error.underlying
                } else {
                    return false
                }
            }
            return false
        }

        /// ``write(_:_:)`` with an async body (the app's transactional outbox): the body runs on
        /// the caller's task, and its synchronous Depot parts on the store's threads.
        ///
        /// `BEGIN` is sent without waiting, and the lock with the body's first statement (inside
        /// it when that is an upsert; a read waits for them, as postgres-nio runs a connection's
        /// statements in order); the body's writes that need no answer are not waited for either.
        /// The change notice follows them, then the commit once all of them answered (one that
        /// failed rolls everything back).
        func write<Output: Sendable>(
            _ what: String, async body: @Sendable (PostgresTransaction) async throws -> Output
        ) async throws -> Output {
            try ensureOpen("cannot \(what)")
            let recorder = ChangeRecorder()
            let output = try await Self.storageErrors("cannot \(what)") {
                try await leasing("cannot \(what)") { connection in
                    let transaction = PostgresTransaction(storage: self, connection: connection, recorder: recorder)
                    do {
                        // Locks go with the body's statements.
                        try transaction.begin()
                        let output: Output
                        do {
                            output = try await body(transaction)
                        } catch {
                            throw BodyFailure(error: error)
                        }
                        try transaction.sendDeferred()
                        // What no statement announced itself (their notices rode with them).
                        if let notice = changeNotice(recorder.unannounced) {
                            try transaction.sendUnanswered(
                                "announce the changes", "SELECT pg_notify(\(channel), \(notice))")
                        }
                        transaction.close()
                        try await transaction.settle()
                        let commit = try await send("COMMIT", on: connection).get()
                        guard commit.metadata.command == "COMMIT" else {
                            throw DepotError(
                                .storage, "the server rolled the transaction back (\(commit.metadata.command))")
                        }
                        return output
                    } catch {
                        transaction.close()
                        do {
                            _ = try await send("ROLLBACK", on: connection).get()
                        } catch {
                            // A connection that cannot roll back must not go back to the pool
                            // inside a transaction.
                            try? await connection.close()
                        }
                        throw error
                    }
                }
            }
            recorder.publish(for: self)
            return output
        }

        /// Sends `query` on `connection` (counted in ``statementCount``) and returns its answer to come.
        func send(_ query: PostgresQuery, on connection: PostgresConnection) -> EventLoopFuture<PostgresQueryResult> {
            statements.withLock { $0 += 1 }
            return connection.query(query, logger: logger)
        }

        /// The advisory lock key of `schema`'s writers.
        static func lockKey(_ schema: String) -> Int64 {
            // Stable across processes and versions (Hasher is seeded).
            Int64(bitPattern: FNV1a.hash("depot:\(schema)".utf8))
        }

        /// Carries an error a transaction body threw past the `.storage` wrapping.
        struct BodyFailure: Error {
            let error: any Error
        }

        static func storageErrors<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch {
                throw wrap(error, what)
            }
        }

        static func storageErrors<T>(_ what: String, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch {
                throw wrap(error, what)
            }
        }

        static func wrap(_ error: any Error, _ what: String) -> any Error {
            if let failure = error as? BodyFailure { return failure.error }
            if error is DepotError { return error }
            if error is CancellationError { return DepotError(.cancelled, "\(what): cancelled", underlying: error) }
            if let error = error as? PSQLError {
                let message = error.serverInfo?[.message] ?? "\(error.code)"
                return DepotError(.storage, "\(what): \(message)", underlying: error)
            }
            return DepotError(.storage, "\(what): \(error)", underlying: error)
        }
    }
#endif
