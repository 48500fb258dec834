#if Postgres
    import Depot
    @testable import DepotPostgres
    import Foundation
    import PostgresNIO
    import Testing

    /// postgres-nio queues a lease for ever on a client that is not running: a store never waits
    /// for ever on one, it fails with `.storage` once ``PostgresStorage/connectionTimeout`` passed
    /// (issue 46).
    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresConnectionTimeoutTests {
        @Test("a store on a client the app never runs fails with .storage instead of waiting for ever")
        func clientNeverRun() async throws {
            let url = try #require(PostgresFixture.url)
            let client = PostgresClient(configuration: try PostgresStorage.configuration(url: url))
            let failure = await #expect(throws: DepotError.self) {
                _ = try await PostgresStorage(
                    client: client, schema: "never_run", connectionTimeout: .milliseconds(300))
            }
            #expect(failure?.code == .storage)
            #expect(failure?.message.contains("no database connection within") == true)
        }

        @Test("a call on a store whose client's run() ended fails with .storage instead of waiting for ever")
        func clientRunEnded() async throws {
            let url = try #require(PostgresFixture.url)
            let client = PostgresClient(configuration: try PostgresStorage.configuration(url: url))
            let runner = Task { await client.run() }
            let schema = "run_ended_\(UInt32.random(in: 0...UInt32.max))"
            let storage = try await PostgresStorage(client: client, schema: schema)
            #expect(try await storage.fetch(collection: "notes", id: "1") == nil)

            // When: the app's client stops, and the store is used again
            runner.cancel()
            await runner.value
            let failure = await #expect(throws: DepotError.self) {
                _ = try await storage.fetch(collection: "notes", id: "1")
            }

            // Then: a typed failure, not a wait with no end
            #expect(failure?.code == .storage)
            await storage.close()
        }
    }
#endif
