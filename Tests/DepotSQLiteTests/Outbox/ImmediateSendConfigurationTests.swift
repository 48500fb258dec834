import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ImmediateSendConfigurationTests {
    @Test("a local-first write's immediate send uses the storage's forwarder's clock and backoff")
    func immediateSendUsesTheForwardersConfiguration() async throws {
        try await withOutboxFixture { fixture in
            // Given a forwarder on the storage, with a manual clock and a 1 s backoff without jitter
            // (stopped again, so the immediate send is the only road)
            let forwarder = fixture.forwarder()
            forwarder.start()
            await forwarder.stop()
            fixture.server.inject(.status(503), pathPrefix: "/messages")
            // When a synchronizing local-first write's immediate send fails
            let messages = fixture.repository(strategy: Strategy(Rule(target: .local, synchronize: true)))
            _ = try? await messages.create(Message(id: "1", text: "one")).value
            // Then its retry is due on the forwarder's clock, after the forwarder's backoff
            let entry = try #require(try await fixture.outbox().first)
            #expect(entry.failures == 1)
            #expect(entry.nextAttempt == fixture.clock.now.addingTimeInterval(1))
            withExtendedLifetime(forwarder) {}
        }
    }

    @Test("without a forwarder, an immediate send uses the default configuration")
    func immediateSendWithoutAForwarderUsesTheDefault() async throws {
        try await withOutboxFixture { fixture in
            fixture.server.inject(.status(503), pathPrefix: "/messages")
            let before = Date()
            let messages = fixture.repository(strategy: Strategy(Rule(target: .local, synchronize: true)))
            _ = try? await messages.create(Message(id: "1", text: "one")).value
            let entry = try #require(try await fixture.outbox().first)
            let due = try #require(entry.nextAttempt)
            // The default backoff: 1 s with 20 % jitter, on the system clock.
            #expect(due >= before.addingTimeInterval(0.7) && due <= Date().addingTimeInterval(1.3))
        }
    }
}
