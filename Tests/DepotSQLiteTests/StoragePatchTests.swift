import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A stub server whose messages carry a field `Message` does not model (`pinned`), a SQLite file,
/// and a remote-first repository over both.
func withPinnedFixture(
    strategy: Strategy = .remoteFirst,
    _ body: (StubServer, Messages, SQLiteStorage) async throws -> Void
) async throws {
    try await withFixture(
        strategy: strategy,
        objects: [
            ["id": "1", "text": "one", "author": "ann", "pinned": true],
            ["id": "2", "text": "two", "author": "bob", "pinned": false],
        ],
        body)
}

@Suite struct StoragePatchTests {
    @Test("read, readAll, create and update store the server's JSON as it came, with its ETag")
    func rawSnapshots() async throws {
        try await withPinnedFixture { server, messages, storage in
            _ = try await messages.readAll().value
            var two = try await storage.fetch(collection: "messages", id: "2")
            #expect(two?.snapshot?["pinned"] == false, "the unmodeled field is kept in the snapshot")
            #expect(two?.object["pinned"] == nil && two?.etag == nil, "a list answer has no ETag per item")
            _ = try await messages.read("2").value
            two = try await storage.fetch(collection: "messages", id: "2")
            #expect(two?.snapshot?["pinned"] == false && two?.etag == server.etag(of: "2", in: "messages"))
            let new = try await messages.create(["text": "new", "pinned": true]).value.value
            let created = try await storage.fetch(collection: "messages", id: new.id)
            #expect(created?.snapshot?["pinned"] == true && created?.etag == server.etag(of: new.id, in: "messages"))
            let before = try #require(server.etag(of: "1", in: "messages"))
            _ = try await messages.read("1").value
            _ = try await messages.update(Message(id: "1", text: "put")).value
            #expect(server.requests.last?.header("if-match") == before)
            let one = try await storage.fetch(collection: "messages", id: "1")
            #expect(one?.etag == server.etag(of: "1", in: "messages") && one?.etag != before)
        }
    }

    @Test("online patch: the diff against the stored snapshot, If-Match from the stored ETag, the answer stored")
    func onlinePatch() async throws {
        try await withPinnedFixture { server, messages, storage in
            // Given
            var one = try await messages.read("1").value.value
            let etag = try #require(server.etag(of: "1", in: "messages"))
            // When
            one.text = "edited"
            one.author = nil
            let answer = try await messages.patch(one).value
            // Then
            #expect(answer.origin == .remote && answer.value == one && answer.synchronizationError == nil)
            let request = try #require(server.requests.last)
            #expect(request.method == "PATCH" && request.path == "/messages/1")
            #expect(request.header("content-type") == "application/merge-patch+json")
            #expect(request.json == ["text": "edited", "author": nil])
            #expect(request.header("if-match") == etag)
            #expect(server.objects(in: "messages").first == ["id": "1", "text": "edited", "pinned": true])
            let stored = try #require(try await storage.fetch(collection: "messages", id: "1"))
            #expect(stored.syncState == .synced && stored.object == ["id": "1", "text": "edited"])
            #expect(stored.snapshot == ["id": "1", "text": "edited", "pinned": true])
            #expect(stored.etag == server.etag(of: "1", in: "messages"))
        }
    }

    @Test("no change, no request: the entity is stored as synced")
    func noChange() async throws {
        try await withPinnedFixture { server, messages, _ in
            let one = try await messages.read("1").value.value
            let count = server.requests.count
            let answer = try await messages.patch(one).value
            #expect(answer.value == one && answer.origin == .remote)
            #expect(server.requests.count == count)
        }
    }

    @Test("offline patch is stored .updated with the snapshot kept; the later online patch sends the same diff")
    func offlineThenOnline() async throws {
        try await withPinnedFixture { server, messages, storage in
            // Given
            var one = try await messages.read("1").value.value
            let etag = try #require(server.etag(of: "1", in: "messages"))
            try await server.goOffline()
            // When offline
            one.text = "offline edit"
            one.likes = 3
            let offline = try await messages.patch(one).value
            // Then
            #expect(offline.origin == .local && offline.fallbackError?.code == .transport)
            let kept = try #require(try await storage.fetch(collection: "messages", id: "1"))
            #expect(kept.syncState == .updated && kept.object["text"] == "offline edit")
            #expect(kept.snapshot == ["id": "1", "text": "one", "author": "ann", "pinned": true] && kept.etag == etag)
            // When online again
            try await server.goOnline()
            let online = try await messages.patch(one).value
            // Then
            #expect(online.origin == .remote)
            let request = try #require(server.requests.last)
            #expect(request.method == "PATCH" && request.json == ["text": "offline edit", "likes": 3])
            #expect(request.header("if-match") == etag)
            #expect(server.objects(in: "messages").first?["pinned"] == true)
            #expect(try await storage.fetch(collection: "messages", id: "1")?.syncState == .synced)
        }
    }

    @Test("a patch of an entity the server never saw stays .created offline; online, its create goes first")
    func neverSynced() async throws {
        try await withPinnedFixture { server, messages, storage in
            try await server.goOffline()
            _ = try await messages.create(Message(id: "n1", text: "draft")).value
            let offline = try await messages.patch(Message(id: "n1", text: "draft 2")).value
            #expect(offline.origin == .local)
            #expect(try await storage.fetch(collection: "messages", id: "n1")?.syncState == .created)
            try await server.goOnline()
            let online = try await messages.patch(Message(id: "n1", text: "draft 3")).value
            #expect(online.origin == .remote && online.value.text == "draft 3")
            // The offline create's connection was refused on a session that never had one open:
            // nothing was sent, so the offline patch folded into it, and so does the online patch
            // (a remote-first write folds into never-sent entries as a local one does): one POST.
            let writes = server.requests.filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["POST"])
            #expect(writes.map { $0.json?.objectValue?["text"] } == ["draft 3"])
            #expect(writes.last?.path == "/messages")
            #expect(try await storage.fetch(collection: "messages", id: "n1")?.syncState == .synced)
            #expect(try await storage.outboxCount(OutboxQuery()) == 0)
        }
    }

    @Test("a stale stored ETag: .conflict with the server's body, no fallback, the store unchanged")
    func staleStoredETag() async throws {
        try await withPinnedFixture { server, messages, storage in
            var one = try await messages.read("1").value.value
            let theirs = try NetworkRequest(
                method: .patch, path: "messages/1", headers: ["Content-Type": "application/merge-patch+json"],
                json: ["text": "theirs"])
            _ = try await NetworkingSession(url: server.url).send(theirs)
            one.author = "me"
            let error = await #expect(throws: DepotError.self) { try await messages.patch(one).value }
            #expect(error?.code == .conflict && error?.status == 412)
            #expect(try JSON(parsing: try #require(error?.responseBody))["text"] == "theirs")
            let stored = try await storage.fetch(collection: "messages", id: "1")
            #expect(stored?.syncState == .synced && stored?.object["author"] == "ann")
        }
    }
}
