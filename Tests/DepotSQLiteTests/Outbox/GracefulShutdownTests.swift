import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// `OutboxMessages` pushed entity by entity, as a synchronization without a batch route does.
private struct EachMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = recordOnly
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: .each) }
}

@Suite struct GracefulShutdownTests {
    @Test(
        "graceful shutdown stops AutoSync's push after the requests in flight, stores their answers, sends the rest once"
    )
    func gracefulShutdownStopsThePushAfterTheRequestsInFlight() async throws {
        try await withOutboxFixture { fixture in
            // Given 60 queued writes, each taking 10 ms on the server
            let messages = EachMessages(store: fixture.session, storage: fixture.storage)
            for index in 0..<60 { _ = try await messages.create(Message(id: "m\(index)", text: "queued")).value }
            fixture.server.inject(.delay(.milliseconds(10)), times: 1_000, pathPrefix: "/messages")
            let executor = ActionExecutor(maxConcurrent: 1)
            let sync = AutoSync(
                executor: executor, every: .seconds(300),
                configuration: AutoSyncConfiguration(clock: ManualForwarderClock()))
            sync.add(SynchronizeAction(messages))
            let group = ServiceGroup(services: [executor, sync], logger: Logger(label: "test"))
            // When the 10th write reaches the server, a graceful shutdown is asked for
            let signalled = LockedValue<Int?>(nil)
            let writes = LockedValue(0)
            fixture.server.observe(.post, "messages") { _ in
                let count = writes.withLock { count in
                    count += 1
                    return count
                }
                guard count == 10 else { return }
                signalled.withLock { $0 = fixture.server.appliedWrites.count }
                Task { await group.triggerGracefulShutdown() }
            }
            try await group.run()
            // Then the push stopped after the requests in flight, not after all 60
            let atSignal = try #require(signalled.withLock { $0 })
            let applied = Set(fixture.server.appliedWrites.compactMap(\.id))
            #expect(applied.count - atSignal < 10)
            #expect(applied.count < 60)
            // And every answer received is stored: no entry applied and still pending
            let outbox = try await fixture.outbox()
            #expect(outbox.count == 60 - applied.count)
            #expect(Set(outbox.map(\.entityID)).isDisjoint(with: applied))
            for id in applied { #expect(try await fixture.stored(id)?.syncState == .synced) }
            // And a restart sends the rest, each exactly once
            fixture.server.clearFaults()
            let report = try await messages.synchronize().value
            #expect(report.pushed == 60 - applied.count && report.errors.isEmpty)
            #expect(fixture.server.appliedWrites.count == 60)
            #expect(Set(fixture.server.appliedWrites.compactMap(\.id)).count == 60)
        }
    }

    @Test("a SynchronizeAction asked to stop ends after the entry in flight and reports it stopped early")
    func stoppedSynchronizeActionEndsAfterTheEntryInFlight() async throws {
        try await withOutboxFixture { fixture in
            // Given 50 queued writes
            let messages = EachMessages(store: fixture.session, storage: fixture.storage)
            for index in 0..<50 { _ = try await messages.create(Message(id: "m\(index)", text: "queued")).value }
            let executor = ActionExecutor(maxConcurrent: 1)
            let proxy = LockedValue<ActionProxy<SynchronizationReport>?>(nil)
            // When the action is asked to stop while its 5th write is in flight
            let writes = LockedValue(0)
            fixture.server.observe(.post, "messages") { _ in
                let count = writes.withLock { count in
                    count += 1
                    return count
                }
                if count == 5 { proxy.withLock { $0 }?.stop() }
            }
            executor.suspend()  // the proxy is kept before the action starts
            proxy.withLock { $0 = executor.execute(SynchronizeAction(messages)) }
            executor.resume()
            let report = try await #require(proxy.withLock { $0 }).result.value
            // Then it stored that answer and went no further
            #expect(report.stoppedEarly)
            #expect(report.pushed == 5 && report.pages == 0)
            #expect(fixture.server.appliedWrites.count == 5)
            #expect(try await fixture.outbox().count == 45)
        }
    }
}
