import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write refused after the entity's earlier queued write was delivered in the same
/// send is taken back over what that delivery stored: the record becomes the server's copy the
/// earlier write's answer gave (synced, with its `ETag`), not the record as it was before both
/// writes (the older snapshot and `ETag`, its state `.updated` with no entry left to send it).
@Suite struct TakeBackAfterDeliveryTests {
    @Test("a remote-first update refused 412 behind a delivered queued update leaves the server's copy, synced")
    func refusedAfterEarlierDelivered() async throws {
        try await withOutboxFixture(objects: [["id": "x", "text": "original", "author": "ann"]]) { fixture in
            // Given: x read (its ETag stored, a kept-alive connection in the session's pool), then
            // an edit whose send was refused right after: it may have reached the server (libcurl
            // resends on a new connection), so it is queued as attempted and no later write folds
            // into it
            let remote = fixture.repository()
            _ = try await remote.read("x").value
            let original = try await fixture.storage.fetch(collection: "messages", id: "x")
            try await fixture.server.goOffline()
            _ = try await remote.update(Message(id: "x", text: "u1", author: "ann")).value
            #expect(try await fixture.outbox().map(\.attempts) == [1])
            try await fixture.server.goOnline()

            // When: a remote-first update sends the queued edit first (applied, its answer held),
            // another client changes x meanwhile, and the update then meets 412
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/x")
            let second = Task { try await remote.update(Message(id: "x", text: "u2", author: "ann")).value }
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "PUT" } })
            let theirs = try NetworkRequest(
                method: .patch, path: "messages/x", headers: ["Content-Type": "application/merge-patch+json"],
                json: ["author": "bob"])
            _ = try await NetworkingSession(url: fixture.server.url).send(theirs)
            gate.open()
            let error = await #expect(throws: DepotError.self) { try await second.value }
            #expect(error?.code == .conflict && error?.status == 412)

            // Then: the record is the copy the queued edit's answer gave, synced, nothing pending
            let stored = try #require(try await fixture.storage.fetch(collection: "messages", id: "x"))
            #expect(stored.syncState == .synced, "\(stored)")
            #expect(stored.object["text"] == "u1" && stored.object["author"] == "ann")
            #expect(stored.etag != nil && stored.etag != original?.etag)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
