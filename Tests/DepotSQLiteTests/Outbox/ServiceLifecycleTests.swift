import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Logging
import ServiceLifecycle
import Testing

@Suite struct ServiceLifecycleTests {
    @Test(
        "a forwarder in a ServiceGroup: shut down gracefully mid-forward, it stores every answer, sends nothing twice")
    func forwarderShutsDownGracefully() async throws {
        try await withOutboxFixture { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            for index in 0..<60 { _ = try await messages.create(Message(id: "m\(index)", text: "offline")).value }
            // Each write takes 10 ms on the server, so the shutdown lands mid-forward.
            fixture.server.inject(.delay(.milliseconds(10)), times: 1_000, pathPrefix: "/messages")
            let forwarder = fixture.forwarder(messages)
            let sync = AutoSync(
                executor: ActionExecutor(maxConcurrent: 1), every: .seconds(300),
                configuration: AutoSyncConfiguration(clock: ManualForwarderClock()))
            let group = ServiceGroup(services: [forwarder, sync], logger: Logger(label: "test"))
            let running = Task { try await group.run() }
            #expect(await eventuallyTrue { fixture.server.appliedWrites.count >= 10 })
            await group.triggerGracefulShutdown()
            try await running.value
            // Every write the server applied before the shutdown has its answer stored.
            let applied = Set(fixture.server.appliedWrites.compactMap(\.id))
            #expect(applied.count < 60)
            let outbox = try await fixture.outbox()
            #expect(outbox.count == 60 - applied.count)
            #expect(Set(outbox.map(\.entityID)).isDisjoint(with: applied))
            for id in applied { #expect(try await fixture.stored(id)?.syncState == .synced) }
            // A restart sends the rest; nothing is applied twice.
            fixture.server.clearFaults()
            let report = try await fixture.forwarder(messages).flush().value
            #expect(report.delivered == 60 - applied.count && report.rejected.isEmpty)
            #expect(fixture.server.appliedWrites.count == 60)
            #expect(Set(fixture.server.appliedWrites.compactMap(\.id)).count == 60)
        }
    }
}
