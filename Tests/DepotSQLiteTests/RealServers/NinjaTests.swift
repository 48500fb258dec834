import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// django-ninja's notes kept in SQLite: `{"items", "count"}` pages by limit and offset.
struct NinjaNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { RepositoryConfiguration(collectionEnvelope: "items") }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            pagination: .offset(offset: "offset", limit: "limit", size: 25), prune: true, pushMode: .each)
    }
}

private func withNinja(_ body: (RealServer, NinjaNotes) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.ninja) { server in
        let storage = try SQLiteStorage(path: directory.path("ninja.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        try await body(server, NinjaNotes(store: session, storage: storage))
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct NinjaTests {
    @Test("CRUD and PATCH against django-ninja: merge patch read as JSON, 404 on a missing id")
    func crud() async throws {
        try await withNinja { server, notes in
            var note = try await notes.create(ServerNote(id: 0, title: "first")).value.value
            #expect(note.id == 1)
            #expect(try await notes.read(1).value.value.title == "first")
            #expect(try await notes.readAll().value.value.map(\.id) == [1])
            note.title = "edited"
            _ = try await notes.update(note).value
            note.done = true
            #expect(try await notes.patch(note).value.value.done)
            _ = try await notes.delete(id: 1).value
            let plain = FastAPINotes(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await plain.read(1).value }
            #expect(error?.code == .notFound)
            let writes = try await server.requests("__requests").filter { $0["method"] != "GET" }
            #expect(writes.map { $0["status"] } == [201, 200, 200, 204])
        }
    }

    @Test("a full pull of 60 from {items, count} pages of 25")
    func pull() async throws {
        try await withNinja { server, notes in
            try await server.control(.post, "__seed", ["count": 60])
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pulled == 60 && report.pullCompleted)
            #expect(try await server.requests("__requests").filter { $0["method"] == "GET" }.count == 3)
        }
    }

    @Test("an offline create is delivered once and the server's id adopted")
    func offlineCreate() async throws {
        try await withNinja { server, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline", "body": "", "done": false]).value.value
            #expect(draft.id < 0)
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty)
            let posts = try await server.requests("__requests").filter { $0["method"] == "POST" }
            #expect(posts.map { $0["status"] } == [201])
            #expect(try await notes.serverID(of: draft.id) == 1)
            #expect(try await notes.readAll().value.value.map(\.title) == ["offline"])
        }
    }

    @Test("a 422 keeps ninja's detail list in the error")
    func validation() async throws {
        try await withNinja { _, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(ServerNote(id: 0, title: "")).value
            }
            #expect(error?.status == 422)
            let detail = try JSON(parsing: try #require(error?.responseBody))["detail"]?.arrayValue
            #expect(detail?.first?["loc"] == ["body", "payload", "title"])
            let field = try #require(error?.fieldErrors.first)
            #expect(field.field == "payload.title" && !field.message.isEmpty)
        }
    }

    @Test("`var updatedAt: Date` reads and writes django-ninja's stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.ninja) { server in
            var configuration = RepositoryConfiguration(collectionEnvelope: "items")
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes", configuration: configuration)
        }
    }
}
