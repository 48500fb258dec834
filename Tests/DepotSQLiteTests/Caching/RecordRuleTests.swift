import Depot
import DepotTesting
import Foundation
import Testing

/// "One record, one rule": what a read stores of a record keeps the rest of what the store knows
/// about it (its write `ETag`, its cache entry, the app's pending change) right.
@Suite struct RecordRuleTests {
    @Test(
        "a list answer without ETags keeps the write ETag: a later update still sends If-Match (lost update)",
        arguments: StorageKind.allCases)
    func listKeepsWriteETag(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: read("1") stored the write ETag, then readAll() and a pull stored the list.
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            let etag = try #require(try await fixture.storage.fetch(collection: "messages", id: "1")?.etag)
            _ = try await messages.readAll().value
            _ = try await messages.synchronize().value
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.etag == etag)

            // When: another client changes note 1, then the app updates it.
            _ = try await fixture.session.request(.put, "messages/1", body: ["id": "1", "text": "theirs"]).value
            _ = try? await messages.update(Message(id: "1", text: "mine")).value

            // Then: the PUT carried If-Match, the server refused it, and the other client's change stands.
            let put = try #require(fixture.server.requests.last { $0.method == "PUT" })
            #expect(put.header("if-match") == etag)
            #expect(fixture.server.objects(in: "messages").first { $0["id"] == "1" }?["text"] == "theirs")
        }
    }

    @Test(
        "a remote read of a record with a pending edit answers the edit, not the server's older text",
        arguments: StorageKind.allCases)
    func remoteReadShowsPendingEdit(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: note 1 read, then edited locally and not sent yet.
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            var stored = try #require(try await fixture.storage.fetch(collection: "messages", id: "1"))
            stored.object["text"] = "mine"
            stored.syncState = .updated
            try await fixture.storage.upsert(stored)

            // When: it is read remote-first, alone and in a list.
            let read = try await messages.read("1").value
            let list = try await messages.readAll().value

            // Then: both answer what the store holds (the pending edit), and say it is pending.
            #expect(read.origin == .remote && read.value.text == "mine" && read.hasPendingWrites)
            #expect(list.value.first { $0.id == "1" }?.text == "mine" && list.hasPendingWrites)
            #expect(fixture.gets("/messages/1").count == 1 + 1)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "mine")
        }
    }

    @Test(
        "a 304 confirms only what its validator described: a list's summary never becomes the read's answer",
        arguments: StorageKind.allCases)
    func listSummaryNeverAnswersA304(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the full note 1 (likes: 5) read with its ETag; a list that summarises it.
            fixture.server.resource("messages", objects: [["id": "1", "text": "one", "likes": 5]])
            fixture.server.servesValidators = true
            let summary = LockedValue("one")
            fixture.server.route(.get, "/messages") { _, _ in
                .json(.array([.object(["id": "1", "text": .string(summary.withLock { $0 })])]))
            }
            let messages = fixture.messages()
            _ = try await messages.read("1").value

            // When: the list (the same version, summarised) is read, then note 1 again.
            _ = try await messages.readAll().value
            let same = try await messages.read("1").value

            // Then: the stored note is the full one, and the read answers it.
            #expect(same.value.likes == 5)

            // When: the list shows a changed note 1 (summarised), then note 1 is read again.
            summary.withLock { $0 = "uno" }
            _ = try await messages.readAll().value
            fixture.server.clearRequests()
            let notModified = fixture.server.notModifiedCount
            let changed = try await messages.read("1").value

            // Then: the read was a plain GET (the list's copy dropped the validators), and it
            // answers the server's full note.
            #expect(fixture.gets("/messages/1").first?.header("if-none-match") == nil)
            #expect(changed.value.likes == 5 && fixture.server.notModifiedCount == notModified)
        }
    }
}

extension RecordRuleTests {
    @Test(
        "cacheFirst lists see the app's own writes: a create or an update invalidates the collection's lists",
        arguments: StorageKind.allCases)
    func writesInvalidateLists(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the whole list and a filtered one, fresh for 300 s.
            fixture.server.cacheControl = "max-age=300"
            let messages = fixture.messages(.remoteFirst.with(.readAll, Rule(target: .remote, cache: .cacheFirst)))
            #expect(try await messages.readAll().value.value.count == 3)
            #expect(try await messages.readAll(query: ["text": "one"]).value.value.map(\.id) == ["1"])

            // When: the app creates note 4 and changes note 1 so the filter no longer matches.
            _ = try await messages.create(Message(id: "4", text: "four")).value
            _ = try await messages.update(Message(id: "1", text: "uno")).value
            let all = try await messages.readAll().value
            let filtered = try await messages.readAll(query: ["text": "one"]).value

            // Then: both lists asked the server again and show the app's writes.
            #expect(all.origin == .remote && all.value.map(\.id).sorted() == ["1", "2", "3", "4"])
            #expect(filtered.origin == .remote && filtered.value.isEmpty)
            #expect(fixture.gets("/messages").count == 4)
        }
    }
}

extension RecordRuleTests {
    @Test(
        "a record's own GET keeps its cache entry even when the store already held that version (no ETag, max-age)",
        arguments: StorageKind.allCases)
    func ownGetOfHeldVersionStoresEntry(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server with no validators, answers fresh for 60 s; note 1 stored by a list.
            fixture.server.route(.get, "/messages/1") { _, _ in
                .json(["id": "1", "text": "one"], headers: ["Cache-Control": "max-age=60"])
            }
            let messages = fixture.messages(.cacheFirst)
            _ = try await fixture.messages().readAll().value

            // When: note 1 is read cache-first twice.
            _ = try await messages.read("1").value
            let second = try await messages.read("1").value

            // Then: the first read's answer was kept fresh: the second asked nothing.
            #expect(second.origin == .local && fixture.gets("/messages/1").count == 1)
        }
    }
}
