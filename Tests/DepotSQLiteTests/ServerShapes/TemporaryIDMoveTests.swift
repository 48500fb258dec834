import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// An id move goes with its entity when Depot made the old id (issue 43, `MOVES`): the store keeps
/// nothing per create and delete, and a stale handle under the temporary id is answered
/// `.notFound` without a request. A move from an id the app chose stays.
@Suite struct TemporaryIDMoveTests {
    private let recordOnly = Strategy(Rule(target: .local, synchronize: false))

    private func makeStorage(_ kind: StoreKind, _ directory: TemporaryDirectory) throws -> Storage {
        switch kind {
        case .sqlite: try SQLiteStorage(path: directory.path("moves.sqlite"))
        case .memory: InMemoryStorage()
        }
    }

    /// Runs `body` with a stub server that assigns the notes' `Int` ids, and notes kept on `kind`.
    private func withNotes(
        _ kind: StoreKind, _ body: (StubServer, inout StampedNotes) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("notes", idStyle: .integer)
            server.assignIDs(startingAt: 1, for: "notes")
            var notes = StampedNotes(
                store: NetworkingSession(url: server.url), storage: try makeStorage(kind, directory))
            try await body(server, &notes)
        }
    }

    /// Every row of Depot's own collection `collection` in `storage`.
    private func rows(_ collection: String, in storage: Storage) async throws -> [StoredRecord] {
        try await storage.fetch(collection: collection, syncStates: Set(SyncState.allCases), after: nil, limit: 1_000)
    }

    /// Expects `body` to fail with `DepotError` `.notFound`.
    private func expectNotFound(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        let error = await #expect(throws: DepotError.self, "\(what)", sourceLocation: sourceLocation) {
            try await body()
        }
        #expect(error?.code == .notFound, "\(what): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test(
        "a temporary id's move goes with its entity's delivered delete; a stale handle gets .notFound, no request",
        arguments: StoreKind.allCases)
    func temporaryMoveGoesWithEntity(kind: StoreKind) async throws {
        try await withNotes(kind) { server, notes in
            // Given: a note made offline (Depot makes its id), delivered, then deleted under the
            // temporary id and the delete delivered
            notes.strategy = recordOnly
            let draft = try await notes.create(["title": "draft"]).value.value
            #expect(try await notes.isTemporary(draft.id))
            notes.strategy = .remoteFirst
            #expect(try await notes.synchronize().value.errors.isEmpty)
            let serverID = try #require(try await notes.serverID(of: draft.id))
            notes.strategy = recordOnly
            _ = try await notes.delete(id: draft.id).value
            notes.strategy = .remoteFirst
            #expect(try await notes.synchronize().value.errors.isEmpty)
            #expect(server.objects(in: "notes").isEmpty)
            #expect(server.requests.contains { $0.method == "DELETE" && $0.path == "/notes/\(serverID)" })

            // Then: nothing of the entity stays in Depot's own collections
            #expect(try await rows("__depot_moved_ids", in: notes.storage).isEmpty)
            #expect(try await rows("__depot_moved_ids_to", in: notes.storage).isEmpty)
            #expect(try await rows("__depot_temporary_ids", in: notes.storage).isEmpty)
            #expect(try await notes.serverID(of: draft.id) == nil)

            // When: the app's stale handle names the temporary id again, under each strategy
            server.clearRequests()
            for (name, strategy) in [
                ("remote first", Strategy.remoteFirst), ("local first", .localFirst), ("local", recordOnly),
            ] {
                notes.strategy = strategy
                await expectNotFound("read, \(name)") { _ = try await notes.read(draft.id).value }
                await expectNotFound("update, \(name)") {
                    _ = try await notes.update(StampedNote(id: draft.id, title: "stale")).value
                }
                await expectNotFound("patch, \(name)") {
                    _ = try await notes.patch(StampedNote(id: draft.id, title: "stale")).value
                }
                await expectNotFound("delete, \(name)") { _ = try await notes.delete(id: draft.id).value }
            }

            // Then: no request went, and nothing was stored or queued under it
            #expect(server.requests.map { "\($0.method) \($0.path)" } == [])
            #expect(try await notes.storage.outboxCount(OutboxQuery(selection: .all)) == 0)
            #expect(try await notes.storage.fetch(collection: "notes", id: String(draft.id)) == nil)
            #expect(try await rows("__depot_moved_ids", in: notes.storage).isEmpty)
        }
    }

    @Test(
        "a move from an id the app chose stays after its entity's delete: the app may still hold that id",
        arguments: StoreKind.allCases)
    func appIDMoveStays(kind: StoreKind) async throws {
        try await withNotes(kind) { server, notes in
            // Given: a note under the app's own id 7, which the server renames
            notes.strategy = recordOnly
            _ = try await notes.create(StampedNote(id: 7, title: "mine")).value
            #expect(try await !notes.isTemporary(7))
            notes.strategy = .remoteFirst
            #expect(try await notes.synchronize().value.errors.isEmpty)
            let serverID = try #require(try await notes.serverID(of: 7))

            // When: it is deleted, and the delete delivered
            _ = try await notes.delete(id: 7).value
            #expect(server.objects(in: "notes").isEmpty)

            // Then: the move stays, as the app wrote it
            let moves = try await rows("__depot_moved_ids", in: notes.storage)
            #expect(moves.count == 1)
            #expect(moves.first?.object["to"] == .string(String(serverID)))
            #expect(moves.first?.object["temporary"] == nil)
        }
    }
}
