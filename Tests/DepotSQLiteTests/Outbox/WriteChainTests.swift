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
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "one"]], timeout: .seconds(60)) { fixture in
            // Given: an update of x in flight, whose answer the server holds back
            let messages = fixture.repository()
            _ = try await messages.read("x").value
            // The server holds the update's answer until the test opens the gate, so a slow
            // machine does not answer it before the steps below.
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/x")
            async let remote = messages.update(Message(id: "x", text: "remote")).value
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "PUT" } })

            // ... a delete of x counted as sent (no sender of this store sends it while the update
            // is out, so the attempt is written as a sender that lost its lease would leave it),
            // then x created again
            let writes = fixture.repository(strategy: recordOnly)
            try await fixture.storage.transaction { tx in try writes.delete(id: "x", in: tx) }
            let delete = try #require(try await fixture.outbox().last)
            #expect(delete.operation == .delete)
            _ = try await fixture.storage.transaction { tx in try tx.markOutboxAttempted(sequences: [delete.sequence]) }
            let forwarder = fixture.forwarder(writes)
            #expect(try await forwarder.flush().value.delivered == 0)  // behind the update in flight
            _ = try await writes.create(Message(id: "x", text: "again")).value

            // When: the update's answer comes
            gate.open()
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
