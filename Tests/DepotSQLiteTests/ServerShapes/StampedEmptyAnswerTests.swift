import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A server that answers PUT `204` without an `ETag` and stamps `updated_at` on every write
/// (issue 42 #9): the record's version is unknown after the answer, so the next update reads the
/// server's copy first. That copy is judged unchanged on the fields the app writes (a stamp the
/// model does not know is not one of them), so the update goes; a change another client made to
/// a field the app writes is still a conflict.
@Suite struct StampedEmptyAnswerTests {
    /// Message 1 read, then an update delivered and answered `204` without an `ETag` by a server
    /// that stamps it; returns the repository that records writes and the forwarder that sends them.
    private func firstUpdateDelivered(_ fixture: OutboxFixture) async throws -> (OutboxMessages, Forwarder) {
        fixture.server.trackChanges(for: "messages")
        fixture.server.setAnswersWritesEmpty(true, for: "messages")
        _ = try await fixture.repository().read("1").value
        let writes = fixture.repository(strategy: recordOnly)
        let forwarder = fixture.forwarder(writes)
        _ = try await writes.update(Message(id: "1", text: "two")).value
        let first = try await forwarder.flush().value
        #expect(first.delivered == 1)
        #expect(try await fixture.stored("1")?.isVersionUnknown == true)
        return (writes, forwarder)
    }

    @Test(
        "an update after a 204 without an ETag from a server that stamps is sent under the ETag read, not refused",
        arguments: StoreKind.allCases)
    func updateAfterStampedEmptyAnswerIsSent(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an update answered 204 without an ETag, the server's copy stamped since
            let (writes, forwarder) = try await firstUpdateDelivered(fixture)
            fixture.server.clearRequests()

            // When: the app updates again and the outbox is flushed
            _ = try await writes.update(Message(id: "1", text: "three")).value
            let report = try await forwarder.flush().value

            // Then: the server's copy was read once, and the PUT went under its ETag
            #expect(report.delivered == 1 && report.conflicts == 0 && report.rejected.isEmpty)
            #expect(
                fixture.server.requests.map { "\($0.method) \($0.path)" } == ["GET /messages/1", "PUT /messages/1"])
            let put = try #require(fixture.server.requests.last)
            #expect(put.header("if-match") != nil)
            #expect(fixture.serverObject("1")?["text"] == "three")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "three")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "another client's change to a field the app writes, after a 204 without an ETag, is still a conflict",
        arguments: StoreKind.allCases)
    func otherClientsChangeIsStillAConflict(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an update answered 204 without an ETag, then the text changed by another client
            let (writes, forwarder) = try await firstUpdateDelivered(fixture)
            _ = try await fixture.session.request(
                .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["text": "theirs"]
            ).value
            fixture.server.clearRequests()

            // When: the app updates again and the outbox is flushed
            _ = try await writes.update(Message(id: "1", text: "three")).value
            let report = try await forwarder.flush().value

            // Then: no PUT went over their change; the server wins (the default policy)
            #expect(report.conflicts == 1)
            #expect(!fixture.server.requests.contains { $0.method == "PUT" })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
        }
    }
}
