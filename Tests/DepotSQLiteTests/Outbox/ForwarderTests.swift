import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ForwarderTests {
    @Test(
        "offline create, update, patch and delete, then online: the server ends right, each write applied once",
        arguments: StoreKind.allCases)
    func offlineThenOnline(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"], ["id": "2", "text": "two"]]) {
            fixture in
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            // Given: writes made while the server is unreachable
            try await fixture.server.goOffline()
            #expect(try await messages.create(Message(id: "3", text: "new")).value.origin == .local)
            #expect(try await messages.update(Message(id: "1", text: "one, edited")).value.origin == .local)
            #expect(try await messages.patch(Message(id: "2", text: "two", likes: 5)).value.origin == .local)
            #expect(try await messages.delete(id: "1").value.origin == .local)
            let recorded = try await fixture.outbox()
            // The create tried the server first on a session that had a live connection: its
            // refusal may follow a send the server applied (libcurl sends again on a new
            // connection), so it keeps its key. The session then starts an empty pool: the later
            // writes' refusals are facts (nothing sent), so they are ordinary unsent entries, and
            // the delete of 1 folds into its update.
            #expect(recorded.map(\.operation) == [.create, .delete, .patch])
            #expect(recorded.map(\.entityID) == ["3", "1", "2"])
            #expect(recorded.first?.attempts == 1 && recorded.dropFirst().allSatisfy { $0.attempts == 0 })
            #expect(Set(recorded.map(\.idempotencyKey)).count == recorded.count)
            // When: the server is back and the outbox is flushed
            try await fixture.server.goOnline()
            fixture.server.clearAppliedWrites()
            let forwarder = fixture.forwarder(messages)
            let report = try await forwarder.flush().value
            // Then
            #expect(report.delivered == 3 && report.rejected.isEmpty && report.retrying == 0)
            #expect(await forwarder.pendingCount == 0)
            #expect(fixture.serverObject("1") == nil)
            #expect(fixture.serverObject("2")?["likes"] == 5)
            #expect(fixture.serverObject("3")?["text"] == "new")
            #expect(fixture.server.appliedWrites.count == 3)
            for entry in recorded { #expect(fixture.server.appliedCount(idempotencyKey: entry.idempotencyKey) == 1) }
            #expect(try await fixture.stored("1") == nil)
            #expect(try await fixture.stored("2")?.syncState == .synced)
            #expect(try await fixture.stored("3")?.syncState == .synced)
        }
    }
}
