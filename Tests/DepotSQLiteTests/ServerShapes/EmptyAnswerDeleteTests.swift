import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A queued delete of a record whose version a `204` without an `ETag` left unknown, after
/// another client changed it past the copy a pull stored (the model checker's `LOST`, seed
/// 17526487063684254988): the delete reads the server's copy first, finds it changed since the
/// copy the app deleted, and goes to the conflict policy, as a `412` to a known `ETag` would. It
/// never goes without `If-Match`; under server wins the other client's version stays (and the
/// conflict is reported), under client wins the delete goes under the `ETag` just read.
@Suite struct EmptyAnswerDeleteTests {
    /// Message 1 read (its `ETag` stored), updated remote-first and answered `204` without an
    /// `ETag`, pulled (a list answer carries no `ETag`s: the version stays unknown), then changed
    /// by another client and deleted locally (queued). Returns how many requests the server had
    /// recorded before the delete's flush.
    private func deletedOverOtherClientsChange(_ fixture: OutboxFixture) async throws -> Int {
        fixture.server.setAnswersWritesEmpty(true, for: "messages")
        _ = try await fixture.repository().read("1").value
        _ = try await fixture.repository().update(Message(id: "1", text: "two")).value
        let pull = SyncMessages(store: fixture.session, storage: fixture.storage, synchronization: .init())
        _ = try await pull.synchronize().value
        let pulled = try #require(try await fixture.stored("1"))
        #expect(pulled.syncState == .synced && pulled.object["text"] == "two" && pulled.isVersionUnknown)
        _ = try await fixture.session.request(
            .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"], body: ["text": "theirs"]
        ).value
        _ = try await fixture.repository(strategy: recordOnly).delete(id: "1").value
        return fixture.server.requests.count
    }

    @Test(
        "a queued delete after a 204 without an ETag, over another client's change, is a conflict the server wins",
        arguments: StoreKind.allCases)
    func deleteOverOtherClientsChangeServerWins(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: the version unknown, another client's change the store has not seen, a
            // delete queued
            let since = try await deletedOverOtherClientsChange(fixture)
            let told = LockedValue<[JSONObject?]>([])
            let policy = ConflictPolicy.custom { conflict in
                told.withLock { $0.append(conflict.server) }
                return .serverWins
            }

            // When: the forwarder sends the queue
            let report = try await fixture.forwarder(fixture.repository(conflictPolicy: policy)).flush().value

            // Then: no DELETE went; the policy was told of the other client's copy, which stays
            #expect(report.conflicts == 1 && report.rejected.isEmpty)
            #expect(!fixture.server.requests.dropFirst(since).contains { $0.method == "DELETE" })
            #expect(told.withLock { $0.map { $0?["text"] } } == [.string("theirs")])
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a queued delete after a 204 without an ETag, over another client's change, goes under the ETag read when the client wins",
        arguments: StoreKind.allCases)
    func deleteOverOtherClientsChangeClientWins(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: the version unknown, another client's change the store has not seen, a
            // delete queued
            let since = try await deletedOverOtherClientsChange(fixture)
            let theirs = try #require(fixture.server.etag(of: "1", in: "messages"))

            // When: the forwarder sends the queue, the client winning
            let report = try await fixture.forwarder(fixture.repository(conflictPolicy: .clientWins)).flush().value

            // Then: the delete went once, under the ETag of the other client's version
            #expect(report.conflicts == 1 && report.rejected.isEmpty)
            let deletes = fixture.server.requests.dropFirst(since).filter { $0.method == "DELETE" }
            #expect(deletes.map { $0.header("if-match") } == [theirs])
            #expect(fixture.serverObject("1") == nil)
            #expect(try await fixture.stored("1") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
