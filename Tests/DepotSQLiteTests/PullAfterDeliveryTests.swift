import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Regression tests for "an older pull page overwrites a newer delivery": a page whose request
/// left before a write's answer was stored is older than that answer, and never overwrites it,
/// resurrects what it deleted, or prunes what it created.
@Suite struct PullAfterDeliveryTests {
    @Test(
        "a pull page read before a delivery keeps the delivery: no overwrite, no resurrection, no prune",
        arguments: StoreKind.allCases)
    func olderPageKeepsDelivery(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: the server holds 1 ("old") and 2; the app has both, synced
            fixture.server.resource(
                "messages", objects: [["id": "1", "text": "old"], ["id": "2", "text": "doomed"]])
            let repository = SyncMessages(
                store: fixture.session, storage: fixture.storage,
                synchronization: SynchronizationConfiguration(prune: true))
            _ = try await repository.synchronize().value
            #expect(try await fixture.stored("2")?.syncState == .synced)

            // And: the next list read answers as the server stood when it read it (before the
            // writes below), after a delay, and tells the test when it has arrived
            let stale: JSON = [["id": "1", "text": "old"], ["id": "2", "text": "doomed"]]
            fixture.server.route(.get, "/messages", response: .json(stale, delay: .milliseconds(700)))
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            fixture.server.observe(.get, "/messages") { _ in signal.yield() }

            // When: synchronize() runs, and while its read is out the app updates 1, deletes 2
            // and creates 3, remote-first, each answered and stored
            let sync = Task { try await repository.synchronize().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            let remote = fixture.repository(strategy: .remoteFirst)
            _ = try await remote.update(Message(id: "1", text: "new")).value
            _ = try await remote.delete(id: "2").value
            _ = try await remote.create(Message(id: "3", text: "fresh")).value
            let report = try await sync.value

            // Then: the stale page changed none of them
            #expect(report.errors.isEmpty)
            let one = try #require(try await fixture.stored("1"))
            #expect(one.object["text"] == "new" && one.syncState == .synced)
            #expect(try await fixture.stored("2") == nil)
            #expect(try await fixture.stored("3")?.object["text"] == "fresh")
        }
    }

    @Test(
        "a remote readAll whose request left before a delivery keeps the delivery: no overwrite, no resurrection",
        arguments: StoreKind.allCases)
    func olderReadKeepsDelivery(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: the server holds 1 ("old") and 2; the app has both, synced
            fixture.server.resource(
                "messages", objects: [["id": "1", "text": "old"], ["id": "2", "text": "doomed"]])
            let remote = fixture.repository(strategy: .remoteFirst)
            _ = try await remote.readAll().value
            #expect(try await fixture.stored("2")?.syncState == .synced)

            // And: the next list read answers as the server stood before the writes below,
            // after a delay, and tells the test when it has arrived
            let stale: JSON = [["id": "1", "text": "old"], ["id": "2", "text": "doomed"]]
            fixture.server.route(.get, "/messages", response: .json(stale, delay: .milliseconds(700)))
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            fixture.server.observe(.get, "/messages") { _ in signal.yield() }

            // When: a remote readAll is out while the app updates 1 and deletes 2, remote-first
            let read = Task { try await remote.readAll().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await remote.update(Message(id: "1", text: "new")).value
            _ = try await remote.delete(id: "2").value
            let answer = try await read.value

            // Then: the store keeps the newer writes, and the app gets what the store held when
            // the list was stored: each write's outcome once it was stored first (on a loaded
            // machine a write may take longer than the list's delay), never a mix of the two
            // for one record
            let texts = answer.value.map(\.text).sorted()
            #expect(texts.filter { $0 == "old" || $0 == "new" }.count == 1)
            #expect(texts.allSatisfy { ["old", "new", "doomed"].contains($0) })
            let one = try #require(try await fixture.stored("1"))
            #expect(one.object["text"] == "new" && one.syncState == .synced)
            #expect(try await fixture.stored("2") == nil)
        }
    }
}
