import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// FastAPI in its common style: no trailing slash, 422 `{"detail": […]}` validation errors.
struct FastAPINotes: PatchableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let path = "notes"
    let snapshots = SnapshotCache()
}

/// FastAPI's notes kept in SQLite, pulled by offset and limit.
struct FastAPIStoredNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .offset(offset: "offset", limit: "limit", size: 100), prune: true)
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct FastAPITests {
    @Test("a full offset/limit pull of 75 from pages capped at 25, ended by X-Total-Count")
    func offsetPull() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await RealServer.with(.fastAPI) { server in
            try await server.control(.post, "__seed", ["count": 75])
            let notes = FastAPIStoredNotes(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("f.sqlite")))
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pulled == 75 && report.pullCompleted)
            #expect(try await server.requests("__requests").filter { $0["method"] == "GET" }.count == 3)
        }
    }

    @Test("CRUD and PATCH against FastAPI: merge patch read as JSON, 404 on a missing id")
    func crud() async throws {
        try await RealServer.with(.fastAPI) { server in
            let notes = FastAPINotes(store: NetworkingSession(url: server.url))
            var note = try await notes.create(ServerNote(id: 0, title: "first")).value
            #expect(note.id == 1)
            note.title = "edited"
            _ = try await notes.update(note).value
            note.done = true
            #expect(try await notes.patch(note).value.done)
            let patches = try await server.requests("__requests").filter { $0["method"] == "PATCH" }
            #expect(patches.map { $0["status"] } == [200])
            #expect(try await notes.read(1).value == ServerNote(id: 1, title: "edited", done: true))
            _ = try await notes.delete(id: 1).value
            let error = await #expect(throws: DepotError.self) { try await notes.read(1).value }
            #expect(error?.code == .notFound)
        }
    }

    @Test("a 422 keeps FastAPI's detail list in the error")
    func validation() async throws {
        try await RealServer.with(.fastAPI) { server in
            let notes = FastAPINotes(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(ServerNote(id: 0, title: "")).value
            }
            #expect(error?.status == 422)
            let detail = try JSON(parsing: try #require(error?.responseBody))["detail"]?.arrayValue
            #expect(detail?.first?["loc"] == ["body", "title"])
        }
    }

    @Test("`var updatedAt: Date` reads and writes FastAPI's stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.fastAPI) { server in
            var configuration = RepositoryConfiguration()
            configuration.coding = datedNoteCoding
            try await expectServerStamps(on: server, path: "notes", configuration: configuration)
        }
    }
}
