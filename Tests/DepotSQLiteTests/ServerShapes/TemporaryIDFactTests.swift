import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A memo whose `String` id the app chooses.
struct Memo: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var title: String
}

/// Memos kept in SQLite, sent by `synchronize()` one entity at a time.
struct Memos: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Memo
    let store: Networking
    let storage: Storage
    let path = "memos"
    var strategy: Strategy = .remoteFirst
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: .each) }
}

/// Whether an id is temporary is a fact the store recorded when Depot made it, never the id's
/// spelling (issue 42, #4 and #10).
@Suite struct TemporaryIDFactTests {
    private let recordOnly = Strategy(Rule(target: .local, synchronize: false))

    /// The bodies the server received for `method`.
    private func bodies(_ server: StubServer, _ method: String) -> [JSON] {
        server.requests.filter { $0.method == method }.compactMap(\.json)
    }

    /// Whether `json` holds a negative integer anywhere: a temporary `Int` id on the wire.
    private func holdsNegative(_ json: JSON) -> Bool {
        switch json {
        case .integer(let number): number < 0
        case .array(let elements): elements.contains(where: holdsNegative)
        case .object(let object): object.values.contains(where: holdsNegative)
        default: false
        }
    }

    @Test("an app's own String id spelled like a temporary one (\"local-news\") is sent as written")
    func appStringID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: a memo the app names "local-news", created while the server is away
            server.resource("memos")
            var memos = Memos(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("m.sqlite")))
            try await server.goOffline()
            memos.strategy = recordOnly
            _ = try await memos.create(Memo(id: "local-news", title: "news")).value
            #expect(try await !memos.isTemporary("local-news"))
            try await server.goOnline()

            // When: it is delivered
            let report = try await memos.synchronize().value

            // Then: the create carried the app's id, and the entity kept it on both sides
            #expect(report.errors.isEmpty)
            #expect(bodies(server, "POST") == [["id": "local-news", "title": "news"]])
            #expect(server.objects(in: "memos").map { $0["id"] } == ["local-news"])
            let stored = try #require(try await memos.storage.fetch(collection: "memos", id: "local-news"))
            #expect(stored.syncState == .synced)
            #expect(try await memos.serverID(of: "local-news") == nil)
        }
    }

    @Test("an app's own negative Int id is sent as written; only the id Depot made is left out")
    func appNegativeID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("notes", idStyle: .integer)
            server.assignIDs(startingAt: 1, for: "notes")
            var notes = StampedNotes(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("n.sqlite")))
            // Given: one note under the app's id -5, one the server is to name, both made offline
            notes.strategy = recordOnly
            _ = try await notes.create(StampedNote(id: -5, title: "mine")).value
            let draft = try await notes.create(["title": "yours"]).value.value
            #expect(try await !notes.isTemporary(-5))
            #expect(try await notes.isTemporary(draft.id))

            // When: both are delivered
            notes.strategy = .remoteFirst
            let report = try await notes.synchronize().value

            // Then: -5 went as the app wrote it; the temporary id never did
            #expect(report.errors.isEmpty)
            #expect(Set(bodies(server, "POST")) == [["id": -5, "title": "mine"], ["title": "yours"]])
            // (this server assigns every id: both entities moved to the ids it gave)
            #expect(try await notes.serverID(of: draft.id) != nil)
            #expect(try await !notes.isTemporary(draft.id))
        }
    }

    @Test("a push matched by id never sends an id Depot made: that entity goes on its own")
    func batchKeepsTemporaryIDsOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("notes", idStyle: .integer, objects: [["id": 9, "title": "old"]])
            server.assignIDs(startingAt: 10, for: "notes")
            var notes = StampedNotes(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("b.sqlite")))
            notes.pushMode = .automatic
            _ = try await notes.synchronize().value
            // Given: an edit of note 9 and a new note, both made offline
            notes.strategy = recordOnly
            _ = try await notes.update(StampedNote(id: 9, title: "edited")).value
            let draft = try await notes.create(["title": "new"]).value.value
            server.clearRequests()

            // When: synchronize() pushes with the batch route
            notes.strategy = .remoteFirst
            let report = try await notes.synchronize().value

            // Then: no request carried the temporary id, the server holds no such entity, and the
            // new note lives under the server's id
            #expect(report.errors.isEmpty)
            #expect(!server.requests.compactMap(\.json).contains(where: holdsNegative))
            #expect(!server.objects(in: "notes").contains { holdsNegative(.object($0)) })
            let id = try #require(try await notes.serverID(of: draft.id))
            #expect(server.objects(in: "notes").contains { $0["id"] == .integer(Int64(id)) && $0["title"] == "new" })
            #expect(server.objects(in: "notes").contains { $0["id"] == 9 && $0["title"] == "edited" })
        }
    }
}
