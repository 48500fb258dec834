import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A conflict the server answers for a reason other than the write's own version (a unique field),
/// with no server copy to give way to: the write ends, reported, and is never sent again.
@Suite struct ConflictWithoutServerCopyTests {
    @Test(
        "server wins, a create refused 409 for a unique title, and no server copy: the write ends, sent once",
        arguments: StoreKind.allCases)
    func createRefusedWithoutServerCopy(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given a server that refuses the title as a duplicate and has no message x
            fixture.server.route(.post, "messages", response: .json(["title": ["must be unique"]], status: 409))
            let messages = fixture.repository(strategy: recordOnly, conflictPolicy: .serverWins)
            _ = try await messages.create(Message(id: "x", text: "dup")).value
            // When the forwarder sends it (before the fix: re-queued under a new key after every
            // answer; flush never returned, thousands of POSTs)
            let forwarder = fixture.forwarder(messages)
            let report = try await forwarder.flush().timeout(seconds: Double(60 * TestTimeScale.factor)).value
            await forwarder.stop()
            // Then one POST, the conflict reported, nothing left to send, the record gone
            let posts = fixture.server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 1)
            #expect(report.conflicts == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("x") == nil)
        }
    }

    @Test(
        "server wins, an update refused 412 whose entity the server deleted: the write ends, sent once",
        arguments: StoreKind.allCases)
    func updateOfDeletedEntity(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            let messages = fixture.repository(strategy: recordOnly, conflictPolicy: .serverWins)
            _ = try await fixture.repository().read("1").value
            _ = try await messages.update(Message(id: "1", text: "mine")).value
            // Given a server that refuses every PUT 412 and no longer has message 1
            fixture.server.route(.put, "messages/1", response: .json(["detail": "precondition failed"], status: 412))
            fixture.server.route(.get, "messages/1", response: .json(["detail": "not found"], status: 404))
            let forwarder = fixture.forwarder(messages)
            let report = try await forwarder.flush().timeout(seconds: Double(60 * TestTimeScale.factor)).value
            await forwarder.stop()
            let writes = fixture.server.requests.filter { $0.method == "PUT" || $0.method == "POST" }
            #expect(writes.count == 1)
            #expect(report.conflicts == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("1") == nil)
        }
    }
}
