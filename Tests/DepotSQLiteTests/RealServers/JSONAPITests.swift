import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Django REST Framework JSON:API at its documented settings, configured with the presets alone:
/// a plain `Codable` model, documents both ways, PATCH for updates, `links.next` paging.
struct DJANotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
    var synchronization: SynchronizationConfiguration {
        var configuration = SynchronizationConfiguration.jsonAPI
        configuration.prune = true
        return configuration
    }
}

/// The same notes without a store: every call a request.
struct DJARemoteNotes: CRUDNetworkingRepository {
    typealias Entity = ServerNote
    let store: Networking
    let path = "notes"
    var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
}

/// A DJA server and a SQLite store in a temporary directory.
private func withJSONAPI(_ body: (RealServer, DJANotes) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.jsonAPI) { server in
        let storage = try SQLiteStorage(path: directory.path("jsonapi.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        try await body(server, DJANotes(store: session, storage: storage))
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct JSONAPITests {
    @Test("CRUD and PATCH against DJA: documents both ways, vnd.api+json on every request, update as PATCH")
    func crud() async throws {
        try await withJSONAPI { server, notes in
            let created = try await notes.create(ServerNote(id: 0, title: "first", body: "b")).value.value
            #expect(created.id == 1 && created.title == "first" && created.body == "b")
            #expect(try await notes.read(created.id).value.value == created)
            _ = try await notes.create(["title": "second"]).value
            #expect(try await notes.readAll().value.value.map(\.title) == ["first", "second"])
            var note = created
            note.title = "edited"
            #expect(try await notes.update(note).value.value.title == "edited")
            note.done = true
            let patched = try await notes.patch(note).value.value
            #expect(patched.done && patched.title == "edited")
            _ = try await notes.delete(id: created.id).value
            let error = await #expect(throws: DepotError.self) {
                try await DJARemoteNotes(store: notes.store).read(created.id).value
            }
            #expect(error?.code == .notFound)
            let log = try await server.requests("__requests")
            // DJA gives an ETag to GET answers only (ConditionalGetMiddleware): a PATCH's answer
            // leaves the note's version unknown, so the next write reads it first (a GET).
            #expect(
                log.map { $0["method"] } == [
                    "POST", "GET", "POST", "GET", "PATCH", "GET", "PATCH", "GET", "DELETE", "GET",
                ])
            #expect(log.map { $0["status"] } == [201, 200, 201, 200, 200, 200, 200, 200, 204, 404])
            #expect(log.allSatisfy { $0["accept"] == .string(JSONAPIResource.mediaType) })
            let writes = log.filter { $0["method"] == "POST" || $0["method"] == "PATCH" }
            #expect(writes.allSatisfy { $0["content_type"] == .string(JSONAPIResource.mediaType) })
        }
    }

    @Test("a full pull of 60 notes by links.next: three pages, complete, prune safe")
    func pull() async throws {
        try await withJSONAPI { server, notes in
            try await server.control(.post, "__seed", ["count": 60])
            try await notes.storage.upsert(
                StoredRecord(
                    collection: "notes", id: "9999", object: ["id": 9999, "title": "gone"], syncState: .synced)
            )
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty)
            #expect(report.pulled == 60 && report.pullCompleted && report.pruned == 1)
            let stored = try await notes.storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.count == 60 && stored.contains { $0.id == "60" && $0.object["title"] == "Note 60" })
            let gets = try await server.requests("__requests").filter { $0["method"] == "GET" }
            #expect(gets.count == 3)
        }
    }

    @Test("an offline create delivered once by the forwarder: a document, the server's id adopted")
    func offlineCreate() async throws {
        try await withJSONAPI { server, notes in
            var offline = notes
            offline.strategy = recordOnly
            _ = try await offline.create(ServerNote(id: -1, title: "offline")).value
            let report = try await Forwarder(for: offline).flush().value
            #expect(report.delivered == 1 && report.rejected.isEmpty)
            let stored = try await notes.storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.map(\.id) == ["1"] && stored.first?.syncState == .synced)
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(posts.map { $0["status"] } == [201])
            // A second flush sends nothing: delivered once
            #expect(try await Forwarder(for: offline).flush().value.delivered == 0)
            #expect(try await DJARemoteNotes(store: notes.store).readAll().value.map(\.title) == ["offline"])
        }
    }

    @Test("a validation error: DJA's errors[] as field errors, directly and in a forwarded refusal")
    func fieldErrors() async throws {
        try await withJSONAPI { _, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(ServerNote(id: 0, title: "")).value
            }
            #expect(error?.status == 400)
            #expect(error?.fieldErrors == [FieldError(field: "title", message: "This field may not be blank.")])
            var offline = notes
            offline.strategy = recordOnly
            _ = try await offline.create(ServerNote(id: -1, title: String(repeating: "x", count: 101))).value
            let report = try await Forwarder(for: offline).flush().value
            let rejected = try #require(report.rejected.first)
            #expect(rejected.rejection?.status == 400)
            #expect(
                rejected.rejection?.fieldErrors == [
                    FieldError(field: "title", message: "Ensure this field has no more than 100 characters.")
                ])
        }
    }

    @Test("`var updatedAt: Date` reads and writes DJA's stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.jsonAPI) { server in
            var configuration = RepositoryConfiguration.jsonAPI(type: "notes")
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes", configuration: configuration)
        }
    }
}
