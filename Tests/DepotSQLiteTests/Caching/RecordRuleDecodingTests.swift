import Depot
import DepotTesting
import Foundation
import Testing

/// Version 1 of a note: no likes.
private struct StoredNoteV1: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Version 2 of a note: a required field the server always sent.
private struct StoredNoteV2: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var likes: Int
}

private struct Notes<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository
where Entity.ID == String {
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var configuration = RepositoryConfiguration()
}

/// A stored copy the app can no longer read is a cache miss, never an error.
@Suite struct RecordRuleDecodingTests {
    @Test(
        "a stored copy the new model cannot read: a 304 or a fresh entry answers from the stored snapshot, never .decoding",
        arguments: StorageKind.allCases)
    func unreadableStoredCopyIsAMiss(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: version 1 of the app read note 1 and the list with validators, fresh for 60 s.
            fixture.server.resource("messages", objects: [["id": "1", "text": "one", "likes": 5]])
            fixture.server.servesValidators = true
            fixture.server.cacheControl = "max-age=60"
            var configuration = RepositoryConfiguration()
            configuration.cacheClock = fixture.clock
            let v1 = Notes<StoredNoteV1>(store: fixture.session, storage: fixture.storage, configuration: configuration)
            _ = try await v1.read("1").value
            _ = try await v1.readAll().value

            // When: version 2 (likes required) reads them, revalidating and cache-first.
            var v2 = Notes<StoredNoteV2>(store: fixture.session, storage: fixture.storage, configuration: configuration)
            let list = try await v2.readAll().value
            let read = try await v2.read("1").value
            v2.strategy = .cacheFirst
            let cached = try await v2.read("1").value
            let cachedList = try await v2.readAll().value

            // Then: every read answers the note with its likes.
            #expect(read.value.likes == 5 && list.value.map(\.likes) == [5])
            #expect(cached.value.likes == 5 && cachedList.value.map(\.likes) == [5])
        }
    }

    @Test(
        "one unreadable row no longer fails a remote readAll whole: the readable rows answer, the rest is quarantined",
        arguments: StorageKind.allCases)
    func readAllKeepsReadableRows(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a list whose second row the app cannot read (text is a number).
            fixture.server.route(
                .get, "/messages", response: .json([["id": "1", "text": "one"], ["id": "2", "text": 5]]))
            let messages = fixture.messages()

            // When: the list is read remote-first.
            let list = try await messages.readAll().value

            // Then: row 1 answers and is stored; row 2 is reported and kept in the quarantine, as a pull keeps it.
            #expect(list.origin == .remote && list.value.map(\.id) == ["1"])
            #expect(list.unreadable.map(\.id) == ["2"] && list.unreadable.first?.error.code == .decoding)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1") != nil)
            #expect(try await messages.quarantined().value.map(\.id) == ["2"])

            // When: the server sends a readable row 2; Then: it is stored and leaves the quarantine.
            fixture.server.route(.get, "/messages", response: .json([["id": "2", "text": "two"]]))
            #expect(try await messages.readAll().value.unreadable.isEmpty)
            #expect(try await messages.quarantined().value.isEmpty)
        }
    }
}
