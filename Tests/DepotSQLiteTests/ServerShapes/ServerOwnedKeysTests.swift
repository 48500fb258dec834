import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note whose `Int` id and `updated_at` the server owns.
struct StampedNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var updated_at: String?
}

/// Stamped notes on a server that assigns ids and stamps, declared once as the server's keys.
struct StampedNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = StampedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var pushMode: PushMode = .each
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.serverOwnedKeys = ["updated_at"]
        return configuration
    }
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: pushMode) }
}

@Suite struct ServerOwnedKeysTests {
    private func withNotes(_ body: (StubServer, StampedNotes) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("notes", idStyle: .integer)
            server.assignIDs(startingAt: 1, for: "notes")
            let storage = try SQLiteStorage(path: directory.path("notes.sqlite"))
            try await body(server, StampedNotes(store: NetworkingSession(url: server.url), storage: storage))
        }
    }

    private func bodies(_ server: StubServer, _ method: String) -> [JSON] {
        server.requests.filter { $0.method == method }.compactMap(\.json)
    }

    @Test("server-owned keys stay out of direct create, update and PATCH bodies")
    func directWrites() async throws {
        try await withNotes { server, notes in
            // Given / When: every direct write, each with a stamp the app holds
            var note = try await notes.create(["title": "a", "updated_at": "2026-01-01T00:00:00"]).value.value
            note.title = "b"
            note.updated_at = "2026-01-02T00:00:00"
            note = try await notes.update(note).value.value
            note.title = "c"
            note.updated_at = "2026-01-03T00:00:00"
            _ = try await notes.patch(note).value

            // Then: no body carries the stamp
            #expect(bodies(server, "POST") == [["title": "a"]])
            #expect(bodies(server, "PUT") == [["id": 1, "title": "b"]])
            #expect(bodies(server, "PATCH") == [["title": "c"]])
        }
    }

    @Test(
        "an offline create of a dictionary with Int ids the server assigns: a temporary id, never sent, then the server's"
    )
    func offlineCreate() async throws {
        try await withNotes { server, notes in
            // Given: a create made while the server is away
            try await server.goOffline()
            let draft = try await notes.create(["title": "offline"]).value
            #expect(draft.origin == .local)
            #expect(try await notes.isTemporary(draft.value.id))
            #expect(try await notes.serverID(of: draft.value.id) == nil)
            try await server.goOnline()

            // When: it is delivered
            let report = try await notes.synchronize().value

            // Then: the body named no id, and the entity lives under the server's id
            #expect(report.errors.isEmpty)
            #expect(bodies(server, "POST") == [["title": "offline"]])
            #expect(try await notes.serverID(of: draft.value.id) == 1)
            #expect(try await notes.read(draft.value.id).value.value == StampedNote(id: 1, title: "offline"))
            #expect(try await notes.storage.fetch(collection: "notes", id: draft.value.id.pathComponent) == nil)
        }
    }

    @Test("an entity made with a temporary id is created without it, on the forwarder's road too")
    func entityWithTemporaryID() async throws {
        try await withNotes { server, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let id = try #require(TemporaryID.make(Int.self))
            _ = try await offline.create(StampedNote(id: id, title: "t", updated_at: "x")).value
            _ = try await notes.synchronize().value
            #expect(bodies(server, "POST") == [["title": "t"]])
            #expect(try await notes.serverID(of: id) == 1)
        }
    }

    @Test("a stale If-Match whose write the server applied and stamped anew is delivered, not a conflict")
    func appliedWriteWithServerStamp() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: note 1 read with the server's stamp, then edited offline
            server.resource(
                "notes", idStyle: .integer, objects: [["id": 1, "title": "a", "updated_at": "2026-01-01T00:00:00"]])
            let session = NetworkingSession(url: server.url)
            let notes = StampedNotes(store: session, storage: try SQLiteStorage(path: directory.path("n.sqlite")))
            var note = try await notes.read(1).value.value
            var offline = notes
            offline.strategy = recordOnly
            note.title = "b"
            _ = try await offline.update(note).value
            // The same edit reached the server earlier (its answer was lost), which stamped it anew:
            // the entry's If-Match is stale now.
            _ = try await session.request(
                .patch, "notes/1", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["title": "b", "updated_at": "2026-01-02T00:00:00"]
            ).value

            // When: the forwarder sends the entry, meets 412 and reads the server's version
            let forwarder = Forwarder(
                for: notes,
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0, clock: ManualForwarderClock()))
            let report = try await forwarder.flush().value
            await forwarder.stop()

            // Then: the server holds the write (its own stamp aside): delivered, no conflict
            #expect(report.delivered == 1 && report.conflicts == 0 && report.rejected.isEmpty)
            #expect(server.requests.filter { $0.method == "PUT" }.count == 1)
            let stored = try #require(try await notes.storage.fetch(collection: "notes", id: "1"))
            #expect(stored.syncState == .synced && stored.object["title"] == "b")
        }
    }

    @Test("the push's array to the collection leaves out server-owned keys and temporary ids")
    func bulkPush() async throws {
        try await withNotes { server, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            _ = try await offline.create(["title": "one", "updated_at": "x"]).value
            var bulk = notes
            bulk.pushMode = .bulkCollection
            let report = try await bulk.synchronize().value
            #expect(report.errors.isEmpty)
            #expect(bodies(server, "POST") == [[["title": "one"]]])
            #expect(server.objects(in: "notes").count == 1)
        }
    }
}

/// Stamps printed without a zone, by a server mixing them with zoned ones.
struct ZonelessNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = StampedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var timeZone: TimeZone?
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            incremental: IncrementalPull(
                parameter: "updated_after", cursor: .maximum(of: "updated_at"), timeZone: timeZone))
    }
}

@Suite struct ZonelessStampTests {
    @Test("a stamp without a zone is read in the configured zone: the cursor is the latest instant")
    func zoneless() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // 16:50 in UTC+1 is 15:50Z: earlier than the 16:00Z of note 2.
            server.route(.get, "/notes") { _, _ in
                .json([
                    ["id": 1, "title": "a", "updated_at": "2026-11-25T16:50:01.285651"],
                    ["id": 2, "title": "b", "updated_at": "2026-11-25T16:00:00Z"],
                ])
            }
            let notes = ZonelessNotes(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("z.sqlite")),
                timeZone: TimeZone(secondsFromGMT: 3600))
            _ = try await notes.synchronize().value
            _ = try await notes.synchronize().value
            let cursors = server.requests.filter { $0.method == "GET" }.map { $0.query["updated_after"] }
            #expect(cursors == [nil, "2026-11-25T16:00:00Z"])
        }
    }
}
