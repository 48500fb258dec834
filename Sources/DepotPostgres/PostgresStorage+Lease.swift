#if Postgres
    import Depot
    import PostgresNIO

    /// Who won the race between a pooled connection and the deadline for it.
    enum LeaseRace: Sendable {
        case waiting
        case leased
        case timedOut
    }

    extension PostgresStorage {
        /// Runs `body` on a pooled connection, waiting at most ``connectionTimeout`` for one.
        ///
        /// postgres-nio queues a lease until a connection is free, for ever: on a client whose
        /// `run()` never began or has ended, or a pool that cannot connect, every call would wait
        /// with no error. Here the wait is bounded: past it the call fails with `.storage` naming
        /// `what`, and the lease request is cancelled. The bound covers only the wait for a
        /// connection; once `body` has one, it runs to its end (a write is never cut half-way).
        func leasing<Output: Sendable>(
            _ what: String, _ body: @Sendable (PostgresConnection) async throws -> Output
        ) async throws -> Output {
            let (client, timeout) = (self.client, connectionTimeout)
            return try await withoutActuallyEscaping(body) { body in
                let race = LockedValue(LeaseRace.waiting)
                return try await withThrowingTaskGroup(of: Output?.self) { group in
                    group.addTask {
                        try await client.withConnection { connection in
                            let won = race.withLock { state -> Bool in
                                guard state == .waiting else { return false }
                                state = .leased
                                return true
                            }
                            // Too late: the call already failed; the connection goes back at once.
                            guard won else { throw CancellationError() }
                            return try await body(connection)
                        }
                    }
                    group.addTask {
                        do {
                            try await Task.sleep(for: timeout)
                        } catch {
                            return nil  // the lease ended first
                        }
                        let late = race.withLock { state -> Bool in
                            guard state == .waiting else { return false }
                            state = .timedOut
                            return true
                        }
                        guard late else { return nil }
                        throw DepotError(
                            .storage,
                            "\(what): no database connection within \(timeout) (the client is not running, "
                                + "cannot reach the server, or every connection is in use)")
                    }
                    var output: Output?
                    while let next = try await group.next() {
                        guard let next else { continue }
                        output = next
                        group.cancelAll()  // the deadline's task
                    }
                    guard let output else { throw CancellationError() }
                    return output
                }
            }
        }
    }
#endif
