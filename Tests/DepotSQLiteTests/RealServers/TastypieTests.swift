import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note as django-tastypie serves it: a zone-less `updated_at` with microseconds, snake_case
/// keys, and the `resource_uri` of each row.
struct TastypieNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
    var updatedAt: Date?
    var resourceUri: String?
}

/// django-tastypie's `NoteResource` at `/api/v1/note/`, kept in SQLite, configured as the
/// real-servers article says: the `objects` envelope, trailing slashes, PATCH as JSON, ISO 8601 dates and snake_case keys,
/// the server's keys left out of bodies, pages found by `.automatic` (`meta.next`).
struct TastypieNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = TastypieNote
    let store: Networking
    let storage: Storage
    let path = "api/v1/note/"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(
            collectionEnvelope: "objects", itemTrailingSlash: true, patchFormat: .json)
        configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
        configuration.serverOwnedKeys = ["id", "updated_at", "resource_uri"]
        return configuration
    }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .automatic, prune: true, pushMode: .each)
    }
}

/// The same resource without a store, for `readAll(pages: .all)`.
struct TastypieRemoteNotes: CRUDNetworkingRepository {
    typealias Entity = TastypieNote
    let store: Networking
    let path = "api/v1/note/"
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(itemTrailingSlash: true, patchFormat: .json)
        configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
        return configuration
    }
}

private func withTastypie(_ body: (RealServer, TastypieNotes) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.tastypie) { server in
        let storage = try SQLiteStorage(path: directory.path("tastypie.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        try await body(server, TastypieNotes(store: session, storage: storage))
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct TastypieTests {
    @Test("a model with `var updatedAt: Date` reads tastypie's zone-less stamps and writes them back")
    func dates() async throws {
        try await withTastypie { server, notes in
            try await server.control(.post, "__seed/", ["count": 1])
            var note = try await notes.read(1).value.value
            #expect(abs(try #require(note.updatedAt).timeIntervalSinceNow) < 300)
            #expect(note.resourceUri == "/api/v1/note/1/")
            note.title = "edited"
            let updated = try await notes.update(note).value.value
            #expect(updated.title == "edited" && updated.id == 1)
            #expect(try await notes.readAll().value.value.map(\.title) == ["edited"])
        }
    }

    @Test("a create answered 201 with no body and a Location takes the id from it: no duplicate")
    func createWithLocation() async throws {
        try await withTastypie { server, notes in
            let created = try await notes.create(TastypieNote(id: 0, title: "first")).value.value
            #expect(created.id == 1 && created.title == "first")
            let posts = try await server.requests("__requests/").filter { $0["method"] == "POST" }
            #expect(posts.map { $0["status"] } == [201])
            #expect(try await notes.storage.fetch(collection: "api/v1/note/", id: "1")?.syncState == .synced)
            #expect(
                try await TastypieRemoteNotes(store: notes.store).readAll(pages: .all).value.map(\.title) == ["first"])
        }
    }

    @Test("an offline create is delivered once, moves to the server's id, and the next update goes there")
    func offlineCreate() async throws {
        try await withTastypie { server, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline", "body": "", "done": false]).value.value
            #expect(draft.id < 0)
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty)
            #expect(try await notes.serverID(of: draft.id) == 1)
            var note = try await notes.read(1).value.value
            note.done = true
            _ = try await notes.update(note).value
            let writes = try await server.requests("__requests/").filter { $0["method"] != "GET" }
            #expect(
                writes.map { "\($0["method"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" } == [
                    "POST /api/v1/note/", "PUT /api/v1/note/1/",
                ])
            #expect(try await TastypieRemoteNotes(store: notes.store).readAll(pages: .all).value.map(\.done) == [true])
        }
    }

    @Test("readAll(pages: .all) and a pull read all 27 by meta.next, 20 a page")
    func allPages() async throws {
        try await withTastypie { server, notes in
            try await server.control(.post, "__seed/", ["count": 27])
            #expect(try await TastypieRemoteNotes(store: notes.store).readAll(pages: .all).value.count == 27)
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pulled == 27 && report.pullCompleted)
        }
    }

    @Test("a PATCH answered 202 with no body keeps the id of its URL")
    func patch() async throws {
        try await withTastypie { server, notes in
            try await server.control(.post, "__seed/", ["count": 1])
            var note = try await notes.read(1).value.value
            note.done = true
            let patched = try await notes.patch(note).value.value
            #expect(patched.id == 1 && patched.done)
            let patches = try await server.requests("__requests/").filter { $0["method"] == "PATCH" }
            #expect(patches.map { $0["status"] } == [202])
            #expect(try await notes.storage.fetch(collection: "api/v1/note/", id: "1")?.syncState == .synced)
        }
    }

    @Test("a 400 under the resource's name gives the field's own name")
    func fieldErrors() async throws {
        try await withTastypie { _, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(TastypieNote(id: 0, title: "")).value
            }
            #expect(error?.status == 400)
            #expect(error?.fieldErrors == [FieldError(field: "title", message: "This field is required.")])
        }
    }

    @Test("`var updatedAt: Date` reads and writes tastypie's zone-less stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.tastypie) { server in
            var configuration = RepositoryConfiguration(
                collectionEnvelope: "objects", itemTrailingSlash: true, patchFormat: .json)
            configuration.serverOwnedKeys = ["id", "updated_at", "resource_uri"]
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "api/v1/note/", configuration: configuration)
        }
    }
}
