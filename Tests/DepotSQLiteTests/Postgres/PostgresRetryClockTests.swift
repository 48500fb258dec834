#if Postgres
    import Depot
    @testable import DepotPostgres
    import DepotTesting
    import Foundation
    import SoakSupport
    import Testing

    /// Retry times on the database's clock (issue 35): a replica whose wall clock runs wrong
    /// neither hurries nor delays the retries every replica judges.
    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresRetryClockTests {
        @Test("a forwarder whose clock runs 30 s fast stores its retry time on the database's clock")
        func retryTimeOnDatabaseClock() async throws {
            try await withPostgresReplicas { first, second in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let messages = OutboxMessages(store: session, storage: first, strategy: recordOnly)
                    _ = try await messages.create(Message(id: "1", text: "one")).value
                    // Given: a server that answers the first send 503, and a forwarder 30 s fast
                    server.inject(.status(503), times: 1)
                    let forwarder = Forwarder(
                        for: messages, configuration: ForwarderConfiguration(jitter: 0, clock: OffsetClock(offset: 30)))
                    // When: it sends the write, which waits for a retry
                    let report = try await forwarder.flush().value
                    #expect(report.retrying == 1)
                    // Then: the retry is due a backoff after the database's time, not 30 s later
                    let database = try await second.transaction { tx in try tx.leaseTime() }
                    let entry = try #require(try await second.outbox(OutboxQuery()).first)
                    let due = try #require(entry.nextAttempt)
                    #expect(due.timeIntervalSince(database) < 10, "due \(due), database \(database)")
                    await forwarder.stop()
                }
            }
        }
    }
#endif
