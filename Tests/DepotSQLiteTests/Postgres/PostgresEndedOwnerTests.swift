#if Postgres
    import Depot
    @testable import DepotPostgres
    import DepotTesting
    import Foundation
    import Logging
    import PostgresNIO
    import Testing

    /// On PostgreSQL a lease's owner is alive while its session holds its owner lock: a process
    /// killed mid-flush leaves its leases free at once, not after `leaseDuration` (issue 42 #3).
    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresEndedOwnerTests {
        /// Another process's session: holds the owner lock of `token` and registers it, as a store
        /// opened in that process does; `kill()` ends the session from the server's side, as the
        /// death of its process would.
        final class OtherProcess: Sendable {
            let client: PostgresClient
            let runner: Task<Void, Never>
            let backend: Int32

            init(url: String, schema: String, token: String) async throws {
                client = PostgresClient(configuration: try PostgresStorage.configuration(url: url))
                let client = client
                runner = Task { await client.run() }
                let key = PostgresStorage.ownerLockKey(token)
                let logger = Logger(label: "test")
                // A pool connection keeps its session (and so the lock) until it is killed.
                backend = try await client.withConnection { connection in
                    _ = try await connection.query("SELECT pg_advisory_lock_shared(\(key))", logger: logger).get()
                    _ = try await connection.query(
                        """
                        INSERT INTO \(unescaped: "\"\(schema)\"").lease_owners (token, lock_key)
                        VALUES (\(token), \(key))
                        """, logger: logger
                    ).get()
                    let rows = try await connection.query("SELECT pg_backend_pid()", logger: logger).get()
                    return try rows.first!.decode(Int32.self)
                }
            }

            /// Ends the session, waiting (up to 10 s) until the server has removed it.
            func kill(from storage: PostgresStorage) async throws {
                let rows = try await storage.rows(
                    "end the other process's session", "SELECT pg_terminate_backend(\(backend), 10000)")
                #expect(try rows.first?.decode(Bool.self) == true)
            }

            func close() {
                runner.cancel()
            }
        }

        /// Queues `count` creates through `storage`, leased for a minute to the process `token`.
        private func queueLeased(
            _ messages: OutboxMessages, storage: PostgresStorage, count: Int, token: String
        ) async throws {
            for index in 1...count { _ = try await messages.create(Message(id: "m\(index)", text: "t")).value }
            let sequences = try await storage.outbox(OutboxQuery(selection: .all)).map(\.sequence)
            let claimed = try await storage.transaction { tx in
                let now = try tx.leaseTime()
                return try tx.claimOutbox(
                    sequences: sequences,
                    lease: OutboxLease(owner: "otherhost:4242:\(token)#1", expiry: now.addingTimeInterval(60)), now: now
                )
            }
            #expect(claimed.count == count)
        }

        @Test("a killed process's leases are free at once; while its session lives they are left alone")
        func killedOwner() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let storage = try await PostgresFixture.make(in: directory)
            let url = try #require(PostgresFixture.url)
            try await withStubServer { server in
                server.resource("messages")
                let messages = OutboxMessages(
                    store: NetworkingSession(url: server.url), storage: storage, strategy: recordOnly)
                // Given: five entries leased for a minute by another process, alive
                let token = UUID().uuidString
                let other = try await OtherProcess(url: url, schema: storage.schema, token: token)
                defer { other.close() }
                try await queueLeased(messages, storage: storage, count: 5, token: token)

                // When a forwarder flushes while that process lives: nothing is sent behind its back
                let forwarder = Forwarder(for: messages)
                let held = try await forwarder.flush().value
                #expect(held.delivered == 0)
                #expect(server.requests.isEmpty)

                // When the process is killed, and the forwarder flushes again
                try await other.kill(from: storage)
                let report = try await forwarder.flush().value
                await forwarder.stop()

                // Then all five are delivered at once, each once, and the owner is forgotten
                #expect(report.delivered == 5)
                #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
                #expect(server.requests.filter { $0.method == "POST" }.count == 5)
                let owners = try await storage.rows(
                    "count the owners",
                    "SELECT count(*) FROM \(unescaped: storage.quoted).lease_owners WHERE token = \(token)")
                #expect(try owners.first?.decode(Int64.self) == 0)
            }
        }
    }
#endif
