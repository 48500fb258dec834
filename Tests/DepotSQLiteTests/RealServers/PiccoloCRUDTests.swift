import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note as piccolo_api's `PiccoloCRUD` serves it: `updated_at` with microseconds and `Z`,
/// snake_case keys.
struct PiccoloNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
    var updatedAt: Date?
}

/// The settings of the real-servers article's PiccoloCRUD row: `{"rows": […]}` lists, trailing
/// slashes, PATCH as JSON, ISO 8601 dates and snake_case keys, the server's keys left out of bodies.
private var piccoloConfiguration: RepositoryConfiguration {
    var configuration = RepositoryConfiguration(collectionEnvelope: "rows", itemTrailingSlash: true, patchFormat: .json)
    configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
    configuration.serverOwnedKeys = ["id", "updated_at"]
    return configuration
}

/// PiccoloCRUD's page query: `?__page=N&__page_size=15`, its default page size.
private let piccoloPages = Pagination.pageQuery(page: "__page", limit: "__page_size", size: 15)

/// `PiccoloCRUD(Note, read_only=False)` mounted at `/notes`, kept in SQLite.
struct PiccoloNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = PiccoloNote
    let store: Networking
    let storage: Storage
    let path = "notes/"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { piccoloConfiguration }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: piccoloPages, prune: true, pushMode: .each)
    }
}

/// The same router without a store: every call a request.
struct PiccoloRemoteNotes: CRUDNetworkingRepository {
    typealias Entity = PiccoloNote
    let store: Networking
    let path = "notes/"
    var configuration: RepositoryConfiguration { piccoloConfiguration }
}

private func withPiccolo(_ body: (RealServer, PiccoloNotes) async throws -> Void) async throws {
    try await RealServer.with(.piccolo, store: { PiccoloNotes(store: $0, storage: $1) }, body)
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct PiccoloCRUDTests {
    @Test("a create answered 201 [{\"id\": N}] takes the server's id: no duplicate, synced")
    func create() async throws {
        try await withPiccolo { server, notes in
            // Given an empty router
            // When a note is created
            let created = try await notes.create(PiccoloNote(id: 0, title: "first", body: "b")).value.value

            // Then it has the server's id and what was sent, stored once and synced
            #expect(created.id == 1 && created.title == "first" && created.body == "b")
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(stored.map(\.id) == ["1"] && stored.first?.syncState == .synced)
            #expect(try await PiccoloRemoteNotes(store: notes.store).readAll().value.map(\.title) == ["first"])
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(requestSummaries(posts) == ["POST /notes/ 201"])
            // No id or stamp of the client's in the body
            let sent = try JSON(parsing: Data((posts.first?["body"]?.stringValue ?? "").utf8))
            #expect(sent == ["title": "first", "body": "b", "done": false])
        }
    }

    @Test("read, update (PUT answered 204, no body), delete")
    func readUpdateDelete() async throws {
        try await withPiccolo { server, notes in
            try await server.control(.post, "__seed", ["count": 2])
            let read = try await notes.read(1).value.value
            #expect(read.title == "Note 1" && read.id == 1)
            #expect(abs(try #require(read.updatedAt).timeIntervalSinceNow) < 300)
            #expect(Set(try await notes.readAll().value.value.map(\.title)) == ["Note 1", "Note 2"])

            var edited = read
            edited.title = "edited"
            let updated = try await notes.update(edited).value.value
            #expect(updated.id == 1 && updated.title == "edited")
            #expect(try await PiccoloRemoteNotes(store: notes.store).read(1).value.title == "edited")

            _ = try await notes.delete(id: 2).value
            let error = await #expect(throws: DepotError.self) {
                try await PiccoloRemoteNotes(store: notes.store).read(2).value
            }
            #expect(error?.code == .notFound)
            let writes = try await server.requests("__requests").filter { $0["method"] != "GET" }
            #expect(requestSummaries(writes) == ["PUT /notes/1/ 204", "DELETE /notes/2/ 204"])
        }
    }

    @Test("a PATCH answered with the row without its id keeps the URL's id and the fields: no .decoding")
    func patch() async throws {
        try await withPiccolo { server, notes in
            try await server.control(.post, "__seed", ["count": 1])
            var note = try await notes.read(1).value.value
            note.done = true
            note.body = "patched"

            let patched = try await notes.patch(note).value.value

            #expect(patched.id == 1 && patched.done && patched.body == "patched" && patched.title == "Note 1")
            let stored = try #require(try await notes.storage.fetch(collection: "notes/", id: "1"))
            #expect(stored.syncState == .synced && stored.object["done"] == true)
            let patches = try await server.requests("__requests").filter { $0["method"] == "PATCH" }
            #expect(requestSummaries(patches) == ["PATCH /notes/1/ 200"])
            #expect(try await PiccoloRemoteNotes(store: notes.store).read(1).value.body == "patched")
        }
    }

    @Test("readAll by __page and a pull read all 27 notes, 15 a page")
    func allPages() async throws {
        try await withPiccolo { server, notes in
            try await server.control(.post, "__seed", ["count": 27])

            let all = try await PiccoloRemoteNotes(store: notes.store).readAll(pages: piccoloPages).value

            #expect(all.count == 27 && Set(all.map(\.id)) == Set(1...27))
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pulled == 27 && report.pullCompleted)
            let gets = try await server.requests("__requests").filter { $0["method"] == "GET" }
            #expect(
                gets.map { $0["query"]?.stringValue }.prefix(3) == [
                    "__page=1&__page_size=15", "__page=2&__page_size=15", "__page=3&__page_size=15",
                ])
        }
    }

    @Test("readAll(pages: .all) says it cannot page PiccoloCRUD's rows: listNotPaged, never its first 15 as all 27")
    func automaticSaysSo() async throws {
        try await withPiccolo { server, notes in
            try await server.control(.post, "__seed", ["count": 27])

            let error = await #expect(throws: DepotError.self) {
                try await PiccoloRemoteNotes(store: notes.store).readAll(pages: .all).value
            }

            #expect(error?.code == .listNotPaged)
        }
    }

    @Test("an offline create forwarded by the outbox: 201 [{\"id\": N}] delivered once, never rejected")
    func offlineCreate() async throws {
        try await withPiccolo { server, notes in
            // Given a create recorded while offline
            var offline = notes
            offline.strategy = recordOnly
            let draft = try await offline.create(["title": "offline", "body": "", "done": false]).value.value
            #expect(draft.id < 0)

            // When the forwarder delivers it
            let report = try await Forwarder(for: offline).flush().value

            // Then it is delivered, not rejected, and stored under the server's id
            #expect(report.delivered == 1 && report.rejected.isEmpty)
            #expect(try await notes.serverID(of: draft.id) == 1)
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(stored.map(\.id) == ["1"] && stored.first?.syncState == .synced)
            // A second flush sends nothing: delivered once
            #expect(try await Forwarder(for: offline).flush().value.delivered == 0)
            var note = try await notes.read(1).value.value
            note.done = true
            _ = try await notes.update(note).value
            let writes = try await server.requests("__requests").filter { $0["method"] != "GET" }
            #expect(requestSummaries(writes) == ["POST /notes/ 201", "PUT /notes/1/ 204"])
            let remote = try await PiccoloRemoteNotes(store: notes.store).readAll().value
            #expect(remote.map(\.title) == ["offline"] && remote.map(\.done) == [true])
        }
    }

    @Test("a bad field: pydantic's 400 text is a typed error with the server's answer")
    func validationError() async throws {
        try await withPiccolo { server, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(PiccoloNote(id: 0, title: String(repeating: "x", count: 101))).value
            }
            #expect(error?.code == .status && error?.status == 400)
            #expect(error?.responseText?.contains("String should have at most 100 characters") == true)
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(stored.isEmpty)
            let statuses = try await server.requests("__requests").map { $0["status"] }
            #expect(statuses == [400])
        }
    }

    @Test("`var updatedAt: Date` reads and writes PiccoloCRUD's stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.piccolo) { server in
            var configuration = piccoloConfiguration
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes/", configuration: configuration)
        }
    }
}
