import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct AutoSyncForwarderTests {
    @Test(
        "observe(forwarder): an offline write runs the sync after the debounce; a delivery after an outage runs it at once"
    )
    func forwarderTriggers() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let clock = ManualForwarderClock()
            let cached = PullOnlyMessages(store: fixture.session, storage: fixture.storage)
            let sync = AutoSync(
                executor: ActionExecutor(maxConcurrent: 2), every: .seconds(300),
                configuration: AutoSyncConfiguration(jitter: 0, debounce: .seconds(2), clock: clock))
            sync.add(SynchronizeAction(cached))
            let forwarder = fixture.forwarder(fixture.repository(strategy: recordOnly))
            var finishes = AutoSyncRuns(sync)
            sync.observe(forwarder)
            sync.start()
            #expect(try #require(await finishes.next()).trigger == .schedule)
            // A local write: the outbox count rises, and the sync runs 2 s later.
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "2", text: "two")).value
            #expect(await eventuallyTrue { clock.deadlines.first == clock.now.addingTimeInterval(2) })
            clock.advance(by: .seconds(2))
            #expect(try #require(await finishes.next()).trigger == .localWrite)
            // An outage: the flush cannot reach the server; back online, the next delivery runs the sync.
            try await fixture.server.goOffline()
            let failed = try await forwarder.flush().value
            #expect(failed.retrying == 1 && failed.errors.first?.status == nil)
            try await fixture.server.goOnline()
            fixture.clock.advance(by: .seconds(60))  // the forwarder's retry is due
            let delivered = try await forwarder.flush().value
            #expect(delivered.delivered == 1)
            #expect(try #require(await finishes.next()).trigger == .connectionRestored)
            await sync.stop()
            await forwarder.stop()
        }
    }
}
