import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A conflict the server wins with a version the app cannot read (another client wrote a field
/// the model does not decode): regression tests for an entry refused there, whose entity's later
/// writes then waited for ever (the model checker's STUCK, seed 7353741903643917425).
@Suite struct UnreadableConflictTests {
    /// Message 1 read, then made unreadable on the server by another client; an edit recorded
    /// and attempted once (a 503), so the next edit is an entry of its own.
    func staleEditOfUnreadable(_ fixture: OutboxFixture) async throws -> OutboxMessages {
        _ = try await fixture.repository().read("1").value
        _ = try await fixture.session.request(
            .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
            body: .object(["text": 12345])
        ).value
        let messages = fixture.repository(strategy: recordOnly)
        _ = try await messages.update(Message(id: "1", text: "mine")).value
        fixture.server.inject(.status(503), times: 1)
        _ = try? await fixture.forwarder(messages).flush().value
        #expect(try await fixture.outbox().first?.attempts == 1)
        return messages
    }

    @Test("server wins over a version the app cannot read: the write is settled and the entity's next write goes")
    func laterWriteGoes() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given
            let messages = try await staleEditOfUnreadable(fixture)
            _ = try await messages.update(Message(id: "1", text: "later")).value
            #expect(try await fixture.outbox().count == 2)
            // When
            let report = try await fixture.forwarder(messages).flush().value
            // Then: the first gave way to the server's version, the second went against it
            #expect(report.conflicts == 1 && report.rejected.isEmpty)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "later")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "later")
            #expect(try await messages.quarantined().value.isEmpty, "the readable answer released the copy")
        }
    }

    @Test("server wins over a version the app cannot read: the copy is quarantined, the record back to its last one")
    func copyQuarantined() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given
            let messages = try await staleEditOfUnreadable(fixture)
            // When
            let report = try await fixture.forwarder(messages).flush().value
            // Then
            #expect(report.conflicts == 1 && report.rejected.isEmpty)
            #expect(try await fixture.outbox().isEmpty)
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "one")
            let kept = try await messages.quarantined().value
            #expect(kept.map(\.id) == ["1"] && kept.first?.raw["text"] == 12345)
        }
    }
}
