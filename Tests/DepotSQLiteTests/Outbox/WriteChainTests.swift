import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The pending writes of one entity are a chain: an answer changes only the writes it can speak
/// for, those before the entity's next delete.
@Suite struct WriteChainTests {
    @Test(
        "an update's answer does not turn a create queued behind a pending delete into an update",
        arguments: StoreKind.allCases)
    func recreateBehindPendingDelete(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "one"]]) { fixture in
            // Given: an update of x in flight, whose answer the server holds back
            let messages = fixture.repository()
            _ = try await messages.read("x").value
            fixture.server.inject(.delay(.seconds(1)), pathPrefix: "/messages/x")
            async let remote = messages.update(Message(id: "x", text: "remote")).value
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "PUT" } })

            // ... a delete of x tried once (the server answered 503), then x created again
            let writes = fixture.repository(strategy: recordOnly)
            fixture.server.inject(.status(503), pathPrefix: "/messages/x")
            _ = try await writes.delete(id: "x").value
            let forwarder = fixture.forwarder(writes)
            let tried = try await forwarder.flush().value
            #expect(tried.retrying == 1)
            _ = try await writes.create(Message(id: "x", text: "again")).value

            // When: the update's answer comes
            #expect(try await remote.origin == .remote)

            // Then: the create behind the delete is still a create
            #expect(try await fixture.outbox().map(\.operation) == [.delete, .create])
            let report = try await forwarder.flush().value
            #expect(report.delivered == 2 && report.rejected.isEmpty)
            #expect(fixture.serverObject("x")?["text"] == "again")
            let stored = try #require(try await fixture.stored("x"))
            #expect(stored.syncState == .synced && stored.object["text"] == "again")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
