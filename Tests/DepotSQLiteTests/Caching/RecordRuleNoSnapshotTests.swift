import Depot
import DepotTesting
import Foundation
import Testing

/// Version 1 of a note: no likes.
private struct PlainNote: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Version 2 of a note: a required field.
private struct LikedNote: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var likes: Int
}

private struct NoteStore<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository
where Entity.ID == String {
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var configuration = RepositoryConfiguration()
}

/// Issue 32 #5, its last case: a stored copy that does not decode and keeps no snapshot that
/// decodes is a cache miss answered by a plain GET, never an error.
@Suite struct RecordRuleNoSnapshotTests {
    @Test(
        "a stored copy neither whose object nor whose snapshot the new model reads: online, a plain GET answers",
        arguments: StorageKind.allCases, [false, true])
    func noUsableSnapshotIsAPlainGet(kind: StorageKind, cacheFirst: Bool) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server that confirms its ETag with a 304, and that version 1 of the app
            // read while the note had no likes (fresh for 60 s).
            let served = LockedValue<JSON>(["id": "1", "text": "one"])
            fixture.server.route(.get, "/messages/1") { request, _ in
                let headers = ["ETag": "\"n1\"", "Cache-Control": "max-age=60"]
                if request.header("if-none-match") == "\"n1\"" { return StubResponse(status: 304, headers: headers) }
                return .json(served.withLock { $0 }, headers: headers)
            }
            var configuration = RepositoryConfiguration()
            configuration.cacheClock = fixture.clock
            let v1 = NoteStore<PlainNote>(
                store: fixture.session, storage: fixture.storage, configuration: configuration)
            _ = try await v1.read("1").value

            // When: the note gains its likes (the server keeps its ETag), and version 2 (likes
            // required) reads it.
            served.withLock { $0 = ["id": "1", "text": "one", "likes": 5] }
            var v2 = NoteStore<LikedNote>(
                store: fixture.session, storage: fixture.storage, configuration: configuration)
            if cacheFirst { v2.strategy = .cacheFirst }
            let read = try await v2.read("1").value

            // Then: the 304 to the stored validator confirmed nothing the app can read: the read
            // went again without validators and answers the server's note.
            #expect(read.origin == .remote && read.value.likes == 5)
            let gets = fixture.gets("/messages/1")
            #expect(gets.map { $0.header("if-none-match") } == [nil, "\"n1\"", nil])
            // And: what it stored reads: a cache-first read answers from the store.
            v2.strategy = .cacheFirst
            let cached = try await v2.read("1").value
            #expect(cached.origin == .local && cached.value.likes == 5)
            #expect(fixture.gets("/messages/1").count == 3)
        }
    }

    @Test(
        "a listed copy neither whose object nor whose snapshot the new model reads: a 304 to the list is a miss, a plain GET answers",
        arguments: StorageKind.allCases)
    func noUsableSnapshotInListIsAPlainGet(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server that confirms its list's ETag with a 304, and that version 1 of the
            // app read while the note had no likes.
            let served = LockedValue<JSON>([["id": "1", "text": "one"]])
            fixture.server.route(.get, "/messages") { request, _ in
                let headers = ["ETag": "\"l1\""]
                if request.header("if-none-match") == "\"l1\"" { return StubResponse(status: 304, headers: headers) }
                return .json(served.withLock { $0 }, headers: headers)
            }
            let v1 = NoteStore<PlainNote>(store: fixture.session, storage: fixture.storage)
            _ = try await v1.readAll().value

            // When: the note gains its likes (the server keeps the list's ETag), and version 2
            // reads the list.
            served.withLock { $0 = [["id": "1", "text": "one", "likes": 5]] }
            let list = try await NoteStore<LikedNote>(store: fixture.session, storage: fixture.storage).readAll().value

            // Then: the list was asked for again without validators, and answers the server's note.
            #expect(list.origin == .remote && list.value.map(\.likes) == [5])
            #expect(fixture.gets("/messages").map { $0.header("if-none-match") } == [nil, "\"l1\"", nil])
        }
    }
}
