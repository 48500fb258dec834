import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note as Rails' API scaffold serves it: snake_case stamps with milliseconds and `Z`.
struct RailsNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
    var createdAt: Date?
    var updatedAt: Date?
}

/// The settings of the real-servers article's Rails API scaffold row: `"notes"`, PATCH as JSON,
/// ISO 8601 dates and snake_case keys.
private var railsConfiguration: RepositoryConfiguration {
    var configuration = RepositoryConfiguration(patchFormat: .json)
    configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
    return configuration
}

/// `rails g scaffold Note title:string body:text done:boolean --api`, kept in SQLite.
struct RailsNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = RailsNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { railsConfiguration }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .none, prune: true, pushMode: .each)
    }
}

/// The same resource without a store: every call a request.
struct RailsRemoteNotes: CRUDNetworkingRepository {
    typealias Entity = RailsNote
    let store: Networking
    let path = "notes"
    var configuration: RepositoryConfiguration { railsConfiguration }
}

private func withRails(_ body: (RealServer, RailsNotes) async throws -> Void) async throws {
    try await RealServer.with(.rails, store: { RailsNotes(store: $0, storage: $1) }, body)
}

@Suite(.enabled(if: RealServer.railsEnabled), .serialized) struct RailsScaffoldTests {
    @Test("a create answered 201 with the entity and a Location: the server's id, stored once")
    func create() async throws {
        try await withRails { server, notes in
            // Given an empty scaffold
            // When a note is created
            let created = try await notes.create(RailsNote(id: 0, title: "first", body: "b")).value.value

            // Then it is the server's entity, stored once and synced
            #expect(created.id == 1 && created.title == "first" && created.body == "b")
            #expect(abs(try #require(created.createdAt).timeIntervalSinceNow) < 300)
            let stored = try await notes.storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.map(\.id) == ["1"] && stored.first?.syncState == .synced)
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(requestSummaries(posts) == ["POST /notes 201"])
            #expect(posts.first?["location"] == .string(server.url.absoluteString + "/notes/1"))
            #expect(try await RailsRemoteNotes(store: notes.store).readAll().value.map(\.title) == ["first"])
        }
    }

    @Test("read, list (unpaged: readAll(pages: .all) and a pull read all 27), update by PUT, delete")
    func crud() async throws {
        try await withRails { server, notes in
            try await server.control(.post, "__seed", ["count": 27])
            let read = try await notes.read(1).value.value
            #expect(read.title == "Note 1" && read.id == 1)
            let all = try await RailsRemoteNotes(store: notes.store).readAll(pages: .all).value
            #expect(all.count == 27 && all.map(\.id) == Array(1...27))
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pulled == 27 && report.pullCompleted)

            var edited = read
            edited.title = "edited"
            let updated = try await notes.update(edited).value.value
            #expect(updated.id == 1 && updated.title == "edited")
            #expect(try await RailsRemoteNotes(store: notes.store).read(1).value.title == "edited")

            _ = try await notes.delete(id: 2).value
            let error = await #expect(throws: DepotError.self) {
                try await RailsRemoteNotes(store: notes.store).read(2).value
            }
            #expect(error?.code == .notFound)
            let writes = try await server.requests("__requests").filter { $0["method"] != "GET" }
            #expect(requestSummaries(writes) == ["PUT /notes/1 200", "DELETE /notes/2 204"])
        }
    }

    @Test("PATCH sends only the changed field as JSON; PUT is partial too; weak ETags never go as If-Match")
    func patchAndWeakETags() async throws {
        try await withRails { server, notes in
            try await server.control(.post, "__seed", ["count": 1])
            var note = try await notes.read(1).value.value
            note.done = true

            let patched = try await notes.patch(note).value.value

            #expect(patched.id == 1 && patched.done && patched.title == "Note 1")
            // Another client's partial PUT, as the scaffold takes it: only `body` changes.
            let partial = try await server.control(.put, "notes/1", ["body": "put alone"])
            #expect(partial["body"] == "put alone" && partial["title"] == "Note 1" && partial["done"] == true)
            note = try await notes.read(1).value.value
            note.title = "edited"
            _ = try await notes.update(note).value
            let log = try await server.requests("__requests")
            let writes = log.filter { $0["method"] != "GET" }
            #expect(requestSummaries(writes) == ["PATCH /notes/1 200", "PUT /notes/1 200", "PUT /notes/1 200"])
            #expect(writes.first?["body"] == .string(#"{"done":true}"#))
            #expect(writes.first?["content_type"] == "application/json")
            // Every answer had a weak ETag (Rack::ETag); none was sent back as a precondition.
            #expect(log.filter { $0["status"] == 200 }.allSatisfy { $0["etag"]?.stringValue?.hasPrefix("W/") == true })
            #expect(log.allSatisfy { $0["if_match"] == .null })
            #expect(try await RailsRemoteNotes(store: notes.store).read(1).value.title == "edited")
        }
    }

    @Test("a 422 {\"title\": [\"can't be blank\"]} is the field error `title`")
    func fieldErrors() async throws {
        try await withRails { server, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(RailsNote(id: 0, title: "")).value
            }
            #expect(error?.status == 422)
            #expect(error?.fieldErrors == [FieldError(field: "title", message: "can't be blank")])
            let stored = try await notes.storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.isEmpty)
            let statuses = try await server.requests("__requests").map { $0["status"] }
            #expect(statuses == [422])
        }
    }

    @Test("an offline create forwarded by the outbox: delivered once under the server's id")
    func offlineCreate() async throws {
        try await withRails { server, notes in
            var offline = notes
            offline.strategy = recordOnly
            let draft = try await offline.create(["title": "offline", "body": "", "done": false]).value.value
            #expect(draft.id < 0)

            let report = try await Forwarder(for: offline).flush().value

            #expect(report.delivered == 1 && report.rejected.isEmpty)
            #expect(try await notes.serverID(of: draft.id) == 1)
            let stored = try await notes.storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.map(\.id) == ["1"] && stored.first?.syncState == .synced)
            #expect(try await Forwarder(for: offline).flush().value.delivered == 0)
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(requestSummaries(posts) == ["POST /notes 201"])
        }
    }

    @Test("`var updatedAt: Date` reads and writes Rails' stamps (milliseconds, Z) by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.rails) { server in
            var configuration = railsConfiguration
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes", configuration: configuration)
        }
    }
}
