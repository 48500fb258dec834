import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// An entry once sent counts as sent, whatever the transport said afterwards: a later write never
/// folds into it under its key.
@Suite struct AttemptsAreFactsTests {
    @Test(
        "an edit after a PUT the server applied, whose reconnect was refused, is not lost to a replay",
        arguments: StoreKind.allCases)
    func refusedReconnectAfterAppliedPut(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an entity read over a kept-alive connection, and an edit of it in the outbox
            _ = try await fixture.repository().read("1").value
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.update(Message(id: "1", text: "b")).value
            let forwarder = fixture.forwarder(writes)

            // When: the server applies the PUT, then stops listening before it answers, so the
            // client's retry on a new connection is refused
            fixture.server.inject(.applyThenGoOffline, pathPrefix: "/messages/1")
            let first = try await forwarder.flush().value
            #expect(first.delivered == 0 && first.retrying == 1)
            #expect(fixture.serverObject("1")?["text"] == "b")
            let attempted = try await fixture.outbox()
            #expect(attempted.map(\.attempts) == [1])

            // ... and the app edits again, then the server is back
            _ = try await writes.update(Message(id: "1", text: "c")).value
            try await fixture.server.goOnline()
            let second = try await forwarder.flush().value

            // Then: the second edit went under a key of its own, and the server holds it
            let entries = try await fixture.outbox()
            #expect(entries.isEmpty)
            #expect(second.delivered == 2 && second.rejected.isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "c")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "c")
        }
    }
}
