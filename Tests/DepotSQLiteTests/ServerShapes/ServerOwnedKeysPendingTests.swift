import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note whose `viewer` (the account that asked) and `stamp` the server fills per answer.
struct ViewedNote: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var title: String
    var viewer: String?
    var stamp: Int?
}

/// Viewed notes, with `viewer` and `stamp` declared as the server's keys.
struct ViewedNotes: CRUDNetworkingStorageRepository {
    typealias Entity = ViewedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.serverOwnedKeys = ["viewer", "stamp"]
        return configuration
    }
}

/// A pending local change is the keys the app set; a key the server owns is never one of them,
/// so a read shows the server's value for it, under the app's pending edit.
@Suite struct ServerOwnedKeysPendingTests {
    /// A server with note 1, answering each caller its own `viewer` (`Vary: Authorization`), and
    /// `stamp` as the number of GETs so far; a SQLite store shared by the sessions `body` makes.
    private func withViewedNotes(
        _ body: (StubServer, (_ account: String, _ strategy: Strategy) -> ViewedNotes) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let gets = LockedValue(0)
            @Sendable func note(_ request: RecordedRequest) -> JSON {
                let stamp = gets.withLock { count -> Int in
                    count += 1
                    return count
                }
                let viewer = request.header("authorization")?.replacingOccurrences(of: "Bearer ", with: "") ?? "-"
                return ["id": "1", "title": "server", "viewer": .string(viewer), "stamp": .integer(Int64(stamp))]
            }
            server.route(.get, "/notes/:id") { request, _ in
                .json(note(request), headers: ["Vary": "Authorization"])
            }
            server.route(.get, "/notes") { request, _ in
                .json([note(request)], headers: ["Vary": "Authorization"])
            }
            let storage = try SQLiteStorage(path: directory.path("notes.sqlite"))
            try await body(server) { account, strategy in
                let session = NetworkingSession(url: server.url, headers: ["Authorization": "Bearer \(account)"])
                return ViewedNotes(store: session, storage: storage, strategy: strategy)
            }
        }
    }

    @Test("another account's remote readAll shows its own viewer under a pending edit, not the editor's")
    func pendingEditKeepsNoViewer() async throws {
        try await withViewedNotes { _, notes in
            // Given: A reads note 1, then B's list read stores B's copy of it
            var note = try await notes("A", .remoteFirst).read("1").value.value
            #expect(note.viewer == "A")
            _ = try await notes("B", .remoteFirst).readAll().value

            // When: A edits its copy (which names A as viewer) locally, not yet sent, and B reads the list
            note.title = "edited"
            _ = try await notes("A", recordOnly).update(note).value
            let list = try await notes("B", .remoteFirst).readAll().value

            // Then: B sees the pending edit (one store) with the server's viewer for B, never A's
            let listed = try #require(list.value.first)
            #expect(list.origin == .remote)
            #expect(listed.title == "edited")
            #expect(listed.viewer == "B")
        }
    }

    @Test("a remote read under a pending edit answers the server's stamp, not the one the edited entity held")
    func pendingEditKeepsNoStamp() async throws {
        try await withViewedNotes { _, notes in
            // Given: note 1 read (stamp 1), read again (the store holds stamp 2)
            var note = try await notes("A", .remoteFirst).read("1").value.value
            #expect(note.stamp == 1)
            _ = try await notes("A", .remoteFirst).read("1").value

            // When: the first copy (stamp 1) is edited locally, not yet sent, and read again
            note.title = "edited"
            _ = try await notes("A", recordOnly).update(note).value
            let read = try await notes("A", .remoteFirst).read("1").value

            // Then: the pending edit, with the server's stamp of this answer
            #expect(read.origin == .remote)
            #expect(read.value.title == "edited")
            #expect(read.value.stamp == 3)
            #expect(read.value.viewer == "A")
        }
    }
}
