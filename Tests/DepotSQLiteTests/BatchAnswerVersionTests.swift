import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch push whose answer carries no per-element `ETag` leaves the record's version unknown
/// (issue 32 #2, issue 33 follow-up; the model checker's `OVERWRITE`, seed 5350409451988333655):
/// the next conditional write reads the server's version first, and never goes without `If-Match`
/// over another client's change.
@Suite struct BatchAnswerVersionTests {
    /// Message 1 read (its `ETag` stored), changed locally, and pushed through the batch route,
    /// whose answer carries no `ETag`s; returns the repository that pushed it.
    private static func pushedThroughBatch(_ fixture: OutboxFixture) async throws -> SyncMessages {
        _ = try await fixture.repository().read("1").value
        #expect(try await fixture.stored("1")?.etag != nil)
        _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "mine")).value
        let sync = SyncMessages(
            store: fixture.session, storage: fixture.storage,
            synchronization: SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/collection"))))
        let report = try await sync.synchronize().value
        #expect(report.pushed == 1 && report.failed == 0)
        #expect(fixture.serverObject("1")?["text"] == "mine")
        return sync
    }

    /// Another client changes message 1's text to `text`; returns how many requests the server
    /// had recorded by then.
    private static func otherClientWrites(_ text: String, _ fixture: OutboxFixture) async throws -> Int {
        _ = try await fixture.session.request(
            .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
            body: ["text": .string(text)]
        ).value
        return fixture.server.requests.count
    }

    @Test(
        "a PATCH after a batch answer without ETags does not overwrite another client's change: a conflict",
        arguments: StoreKind.allCases)
    func patchAfterBatchAnswerWithoutETagsConflicts(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 pushed through the batch route, then changed by another client
            let sync = try await Self.pushedThroughBatch(fixture)
            let since = try await Self.otherClientWrites("theirs", fixture)

            // When: the app patches it (remote-first)
            var failure: DepotError?
            do {
                _ = try await sync.patch(Message(id: "1", text: "later")).value
            } catch let error as DepotError {
                failure = error
            }

            // Then: no write went without If-Match, the other client's change stays, and the app
            // is told of the conflict
            let writes = fixture.server.requests.dropFirst(since).filter { $0.method != "GET" }
            #expect(writes.allSatisfy { $0.header("if-match") != nil })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            #expect(failure?.code == .conflict)
        }
    }

    @Test(
        "a PATCH after a batch answer without ETags goes under the server's current ETag when nothing changed",
        arguments: StoreKind.allCases)
    func patchAfterBatchAnswerWithoutETagsSendsFreshIfMatch(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 pushed through the batch route, nothing changed since
            let sync = try await Self.pushedThroughBatch(fixture)
            let current = try await fixture.session.exchange(NetworkRequest(method: .get, path: "messages/1")) {
                $0.header("etag")
            }.value
            let since = fixture.server.requests.count

            // When: the app patches it (remote-first)
            _ = try await sync.patch(Message(id: "1", text: "later")).value

            // Then: the PATCH went once, under the version the server holds, and was applied
            let patches = fixture.server.requests.dropFirst(since).filter { $0.method == "PATCH" }
            #expect(patches.count == 1)
            #expect(patches.first?.header("if-match") == current)
            #expect(current != nil)
            #expect(fixture.serverObject("1")?["text"] == "later")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "later")
        }
    }

    @Test(
        "a direct PUT (no outbox) after a batch answer without ETags does not overwrite another client's change",
        arguments: StoreKind.allCases)
    func directUpdateAfterBatchAnswerWithoutETagsConflicts(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 pushed through the batch route, then changed by another client
            _ = try await Self.pushedThroughBatch(fixture)
            let since = try await Self.otherClientWrites("theirs", fixture)

            // When: the app updates it remote-first with no outbox (its direct road)
            let direct = fixture.repository(strategy: Strategy(Rule(target: .remote, synchronize: false)))
            var failure: DepotError?
            do {
                _ = try await direct.update(Message(id: "1", text: "later")).value
            } catch let error as DepotError {
                failure = error
            }

            // Then: no write went without If-Match, and the other client's change stays
            let writes = fixture.server.requests.dropFirst(since).filter { $0.method != "GET" }
            #expect(writes.allSatisfy { $0.header("if-match") != nil })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            #expect(failure?.code == .conflict)
        }
    }

    @Test(
        "a queued PATCH after a batch answer without ETags goes to the conflict policy, not over another client's change",
        arguments: StoreKind.allCases)
    func queuedPatchAfterBatchAnswerWithoutETagsConflicts(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: message 1 pushed through the batch route, changed by another client, then
            // patched locally (queued)
            _ = try await Self.pushedThroughBatch(fixture)
            let since = try await Self.otherClientWrites("theirs", fixture)
            _ = try await fixture.repository(strategy: recordOnly).patch(Message(id: "1", text: "later")).value

            // When: the forwarder sends the queue
            _ = try await fixture.forwarder().flush().value

            // Then: no write went without If-Match, and the conflict policy (server wins) kept the
            // other client's version
            let writes = fixture.server.requests.dropFirst(since).filter { $0.method != "GET" }
            #expect(writes.allSatisfy { $0.header("if-match") != nil })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
