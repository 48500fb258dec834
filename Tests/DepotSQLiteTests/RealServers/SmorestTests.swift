import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note as flask-smorest serves it: the id and a zone-less `updated_at` are the server's.
struct SmorestNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
    var updated_at: String?
}

/// flask-smorest's keys, declared once: marshmallow refuses them in a body (`unknown=RAISE`).
private func smorestConfiguration() -> RepositoryConfiguration {
    var configuration = RepositoryConfiguration()
    configuration.serverOwnedKeys = ["id", "updated_at"]
    return configuration
}

/// flask-smorest without a store: ETags remembered in `snapshots`.
struct SmorestNotes: PatchableRepository {
    typealias Entity = SmorestNote
    let store: Networking
    let path = "notes/"
    let snapshots = SnapshotCache()
    var configuration: RepositoryConfiguration { smorestConfiguration() }
}

/// flask-smorest's notes kept in SQLite: page-number paging, an incremental pull by the
/// zone-less `updated_at` (UTC).
struct SmorestStoredNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = SmorestNote
    let store: Networking
    let storage: Storage
    let path = "notes/"
    var strategy: Strategy = .remoteFirst
    var conflictPolicy: ConflictPolicy = .serverWins
    var incremental = false
    var configuration: RepositoryConfiguration { smorestConfiguration() }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            pagination: .pageQuery(page: "page", limit: "page_size", size: 25), pushMode: .each,
            incremental: incremental
                ? IncrementalPull(
                    parameter: "updated_after", cursor: .maximum(of: "updated_at"),
                    timeZone: TimeZone(secondsFromGMT: 0))
                : nil)
    }
}

private func withSmorest(_ body: (RealServer, SmorestStoredNotes) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.smorest) { server in
        let storage = try SQLiteStorage(path: directory.path("smorest.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        try await body(server, SmorestStoredNotes(store: session, storage: storage))
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct SmorestTests {
    @Test("CRUD and PATCH against flask-smorest: no server key sent, If-Match from the ETags it gives")
    func crud() async throws {
        try await RealServer.with(.smorest) { server in
            let notes = SmorestNotes(store: NetworkingSession(url: server.url))
            var note = try await notes.create(SmorestNote(id: 0, title: "first")).value
            #expect(note.id == 1 && note.updated_at != nil)
            #expect(try await notes.read(1).value.title == "first")
            #expect(try await notes.readAll().value.map(\.id) == [1])
            note.title = "edited"
            note = try await notes.update(note).value
            note.done = true
            note = try await notes.patch(note).value
            #expect(note.done && note.title == "edited")
            _ = try await notes.delete(id: 1).value
            let error = await #expect(throws: DepotError.self) { try await notes.read(1).value }
            #expect(error?.code == .notFound)
            let writes = try await server.requests("__requests").filter { $0["method"] != "GET" }
            #expect(writes.map { $0["status"] } == [201, 200, 200, 204])
            #expect(writes.dropFirst().allSatisfy { $0["if_match"]?.stringValue?.isEmpty == false })
        }
    }

    @Test("a write answered 428 (no ETag after a list read) reads the ETag and goes again under If-Match")
    func preconditionRequired() async throws {
        try await withSmorest { server, notes in
            try await server.control(.post, "__seed", ["count": 1])
            var note = try #require(try await notes.readAll().value.value.first)
            note.title = "mine"
            let answer = try await notes.update(note).value
            #expect(answer.origin == .remote && answer.value.title == "mine")
            let puts = try await server.requests("__requests").filter { $0["method"] == "PUT" }
            #expect(puts.map { $0["status"] } == [428, 200])
            #expect(puts.last?["if_match"]?.stringValue?.isEmpty == false)
        }
    }

    @Test(
        "a queued update answered 428 goes again under If-Match, or to the conflict policy after another edit",
        arguments: [false, true])
    func queuedPreconditionRequired(editedMeanwhile: Bool) async throws {
        try await withSmorest { server, notes in
            try await server.control(.post, "__seed", ["count": 1])
            var note = try #require(try await notes.readAll().value.value.first)
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            note.title = "mine"
            _ = try await offline.update(note).value
            if editedMeanwhile { try await server.control(.post, "__edit/1", ["title": "theirs"]) }

            let report = try await notes.synchronize().value

            #expect(report.errors.isEmpty)
            let puts = try await server.requests("__requests").filter { $0["method"] == "PUT" }
            // Server wins (the default policy): the other client's edit stays.
            #expect(puts.map { $0["status"] } == (editedMeanwhile ? [428] : [428, 200]))
            #expect(try await notes.read(1).value.value.title == (editedMeanwhile ? "theirs" : "mine"))
        }
    }

    @Test("client wins after a 428 over another edit: the conflict re-send goes under If-Match, without server keys")
    func clientWinsAfterPreconditionRequired() async throws {
        try await withSmorest { server, stored in
            var notes = stored
            notes.conflictPolicy = .clientWins
            try await server.control(.post, "__seed", ["count": 1])
            var note = try #require(try await notes.readAll().value.value.first)
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            note.title = "mine"
            _ = try await offline.update(note).value
            try await server.control(.post, "__edit/1", ["body": "theirs"])

            let report = try await notes.synchronize().value

            #expect(report.errors.isEmpty)
            let puts = try await server.requests("__requests").filter { $0["method"] == "PUT" }
            #expect(puts.map { $0["status"] } == [428, 200])
            #expect(puts.last?["if_match"]?.stringValue?.isEmpty == false)
            #expect(try await notes.read(1).value.value.title == "mine")
        }
    }

    @Test("a concurrent edit ends in a conflict, not an overwrite: 412 to the stale If-Match")
    func concurrentEdit() async throws {
        try await withSmorest { server, notes in
            try await server.control(.post, "__seed", ["count": 1])
            var note = try await notes.read(1).value.value
            try await server.control(.post, "__edit/1", ["title": "theirs"])
            note.title = "mine"
            let error = await #expect(throws: DepotError.self) { try await notes.update(note).value }
            #expect(error?.code == .conflict && error?.status == 412)
            let plain = SmorestNotes(store: NetworkingSession(url: server.url))
            #expect(try await plain.read(1).value.title == "theirs")
        }
    }

    @Test("a validation error keeps marshmallow's 422 and its errors.json body")
    func validation() async throws {
        try await RealServer.with(.smorest) { server in
            let notes = SmorestNotes(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(SmorestNote(id: 0, title: "")).value
            }
            #expect(error?.status == 422)
            let body = try JSON(parsing: try #require(error?.responseBody))
            #expect(body["errors"]?["json"]?["title"]?.arrayValue?.isEmpty == false)
            #expect(body["errors"]?["json"]?["id"] == nil)
            #expect(error?.fieldErrors.map(\.field) == ["title"])
        }
    }

    @Test("an offline create is delivered once, without its temporary id, and the server's id adopted")
    func offlineCreate() async throws {
        try await withSmorest { server, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline", "body": "", "done": false]).value.value
            #expect(draft.id < 0)
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty)
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(posts.map { $0["status"] } == [201])
            #expect(posts.first?["body"]?.stringValue?.contains("\"id\"") == false)
            #expect(try await notes.serverID(of: draft.id) == 1)
            #expect(try await notes.read(draft.id).value.value.title == "offline")
        }
    }

    @Test("a full paged synchronize(), then an incremental one by the zone-less updated_at")
    func pagedAndIncremental() async throws {
        try await withSmorest { server, stored in
            var notes = stored
            notes.incremental = true
            try await server.control(.post, "__seed", ["count": 60])
            let full = try await notes.synchronize().value
            #expect(full.errors.isEmpty && full.pulled == 60 && full.pullCompleted)
            try await server.control(.post, "__edit/7", ["title": "changed"])
            let again = try await notes.synchronize().value
            #expect(again.errors.isEmpty && again.pullCompleted)
            #expect(try await notes.read(7).value.value.title == "changed")
            let lists = try await server.requests("__requests").filter { $0["path"] == "/notes/" }
            #expect(lists.last?["query"]?.stringValue?.contains("updated_after=") == true)
            #expect(try await notes.storage.fetch(collection: "notes/", matching: Criteria()).count == 60)
        }
    }

    @Test("`var updatedAt: Date` reads and writes flask-smorest's zone-less stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.smorest) { server in
            var configuration = smorestConfiguration()  // serverOwnedKeys ["id", "updated_at"]
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes/", configuration: configuration)
        }
    }
}
