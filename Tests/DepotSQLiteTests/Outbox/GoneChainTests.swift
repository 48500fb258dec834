import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Writes queued behind one the server refused with a 404: regression tests for entries left
/// pending for ever behind the refusal (the model checker's STUCK, seed 103287310861396932).
@Suite struct GoneChainTests {
    @Test("the writes queued behind one refused with 404 are refused with it, not left pending")
    func writesBehindGoneAreRefused() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 read, deleted on the server by another client, then edited here
            // twice (the first attempted once, a 503, so the second is an entry of its own)
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.session.request(.delete, "messages/1").value
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "a")).value
            fixture.server.inject(.status(503), times: 1)
            _ = try? await fixture.forwarder(messages).flush().value
            _ = try await messages.update(Message(id: "1", text: "b")).value
            #expect(try await fixture.outbox().count == 2)
            // When
            let report = try await fixture.forwarder(messages).flush().value
            // Then: both refused, the app told of each; nothing waits
            #expect(report.rejected.count == 2)
            #expect(try await fixture.outbox(.pending).isEmpty)
            let refused = try await fixture.outbox(.rejected)
            #expect(refused.count == 2 && refused.allSatisfy { $0.rejection?.status == 404 })
        }
    }

    @Test("a re-create after a delete, behind a write refused with 404, is sent: the delete ends the refused chain")
    func recreateAfterGoneAndDeleteIsSent() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 read, deleted on the server by another client, then edited here
            // (attempted once, a 503) and deleted here, both queued
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.session.request(.delete, "messages/1").value
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "a")).value
            fixture.server.inject(.status(503), times: 1)
            let forwarder = fixture.forwarder(messages)
            _ = try? await forwarder.flush().value
            _ = try await messages.delete(id: "1").value
            #expect(try await fixture.outbox().map(\.operation) == [.update, .delete])

            // When: the edit is refused (404), then the app creates 1 anew
            let report = try await forwarder.flush().value
            _ = try await messages.create(Message(id: "1", text: "c")).value
            _ = try await forwarder.flush().value

            // Then: the app was told of the refused edit; the delete was done with it, and the
            // re-create, a new chain, reached the server: nothing left pending
            #expect(report.rejected.map(\.operation) == [.update])
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "c")
            #expect(try await fixture.stored("1")?.object["text"] == "c")
        }
    }
}
