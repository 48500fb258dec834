import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch push sends a tombstone's `DELETE` under `If-Match` (issue 32 #2): another client's
/// change made since the app last read the entity is not deleted unseen.
@Suite struct BatchPushDeleteIfMatchTests {
    @Test(
        "a batch push's DELETE carries If-Match: a local delete does not overwrite another client's change",
        arguments: StoreKind.allCases)
    func batchPushDeleteCarriesIfMatch(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 read (its ETag stored), then changed on the server by another client,
            // then deleted locally
            _ = try await fixture.repository().read("1").value
            let read = try #require(try await fixture.stored("1")?.etag)
            _ = try await fixture.session.request(
                .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["text": "theirs"]
            ).value
            _ = try await fixture.repository(strategy: recordOnly).delete(id: "1").value

            // When: synchronize() pushes through the batch route
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage,
                synchronization: SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/collection"))))
            let report = try await sync.synchronize().value
            #expect(report.failed == 0)

            // Then: the DELETE went under the ETag the app read, the server refused it, and the
            // conflict policy (server wins) kept the other client's version
            let delete = try #require(fixture.server.requests.first { $0.method == "DELETE" })
            #expect(delete.header("if-match") == read)
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a DELETE after a batch push answered without ETags does not delete another client's change unseen",
        arguments: StoreKind.allCases)
    func deleteAfterBatchPushIsConditional(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 read (its ETag stored), an update of it pushed in a batch (whose
            // reply carries no ETags), then the text changed by another client, then a delete queued
            _ = try await fixture.repository().read("1").value
            let writes = fixture.repository(strategy: recordOnly)
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage,
                synchronization: SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/collection"))))
            _ = try await writes.update(Message(id: "1", text: "mine")).value
            let first = try await sync.synchronize().value
            #expect(first.pushed == 1 && first.failed == 0)
            #expect(fixture.serverObject("1")?["text"] == "mine")
            _ = try await fixture.session.request(
                .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["text": "theirs"]
            ).value
            _ = try await writes.delete(id: "1").value
            fixture.server.clearRequests()

            // When: the next synchronize() pushes the delete
            _ = try await sync.synchronize().value

            // Then: no DELETE went without a precondition, the other client's change is on the
            // server, and the conflict policy (server wins) brought it back to the store
            #expect(!fixture.server.requests.contains { $0.method == "DELETE" && $0.header("if-match") == nil })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
