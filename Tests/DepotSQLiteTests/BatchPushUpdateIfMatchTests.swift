import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch carries no precondition per entity: an update of an entity whose version the app
/// knows (a strong `ETag`, with conditional writes on) goes on its own under `If-Match`, so
/// another client's change made since is never overwritten unseen (model checker `OVERWRITE`,
/// seed 1038598393291812980).
@Suite struct BatchPushUpdateIfMatchTests {
    @Test(
        "a batch push sends an update of an entity whose ETag the app holds under If-Match, not in the batch",
        arguments: StoreKind.allCases)
    func versionedUpdateGoesConditionally(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 read (its ETag stored), changed on the server by another client,
            // then updated locally, and message 2 created locally
            _ = try await fixture.repository().read("1").value
            let read = try #require(try await fixture.stored("1")?.etag)
            _ = try await fixture.session.request(
                .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["text": "theirs"]
            ).value
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.update(Message(id: "1", text: "mine")).value
            _ = try await writes.create(Message(id: "2", text: "two")).value
            fixture.server.clearRequests()

            // When: synchronize() pushes through the batch route
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage,
                synchronization: SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/collection"))))
            _ = try await sync.synchronize().value

            // Then: the create went in the batch; the update alone, under the ETag the app read,
            // refused 412, and the conflict policy (server wins) kept the other client's version
            let batches = fixture.server.requests.filter { $0.path == "/messages/collection" }
            #expect(batches.count == 1)
            #expect(batches.allSatisfy { $0.json?.arrayValue?.count == 1 })
            let update = try #require(fixture.server.requests.first { $0.path == "/messages/1" && $0.method != "GET" })
            #expect(update.header("if-match") == read)
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            #expect(fixture.serverObject("2")?["text"] == "two")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
