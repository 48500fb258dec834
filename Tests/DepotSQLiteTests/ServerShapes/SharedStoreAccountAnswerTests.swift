import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Notes whose `viewer` the server fills per caller, not declared as the server's: the app's own
/// field as far as Depot knows (the model checker's shape).
private struct SharedNotes: CRUDNetworkingStorageRepository {
    typealias Entity = ViewedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
}

/// Two accounts on one SQLite store, a server whose answers name the caller (`viewer`, `Vary:
/// Authorization`): an account is answered the server's copy for itself, never another account's
/// field (issue 43 #12, the model checker's `ACCOUNT`).
@Suite struct SharedStoreAccountAnswerTests {
    /// The server's note 1 and what it does: its title, its version, and titles whose write it
    /// answers 503.
    private struct Note: Sendable {
        var title = "server"
        var version = 1
        var refused: Set<String> = []
    }

    /// A server with note 1 answering each caller its own `viewer`, and a SQLite store shared by
    /// the sessions `body` makes (account, strategy).
    private func withSharedNotes(
        _ body: (StubServer, LockedValue<Note>, (_ account: String, _ strategy: Strategy) -> SharedNotes) async throws
            -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let note = LockedValue(Note())
            @Sendable func answer(_ request: RecordedRequest, _ note: Note) -> JSON {
                let viewer = request.header("authorization")?.replacingOccurrences(of: "Bearer ", with: "") ?? "-"
                return [
                    "id": "1", "title": .string(note.title), "viewer": .string(viewer),
                    "stamp": .integer(Int64(note.version)),
                ]
            }
            @Sendable func write(_ request: RecordedRequest) -> StubResponse {
                let written = note.withLock { note -> Note? in
                    let title = request.json?["title"]?.stringValue ?? note.title
                    guard !note.refused.contains(title) else { return nil }
                    note.title = title
                    note.version += 1
                    return note
                }
                guard let written else { return .json(["error": "unavailable"], status: 503) }
                return .json(answer(request, written), headers: ["Vary": "Authorization"])
            }
            server.route(.get, "/notes/:id") { request, _ in
                .json(answer(request, note.withLock { $0 }), headers: ["Vary": "Authorization"])
            }
            server.route(.get, "/notes") { request, _ in
                .json([answer(request, note.withLock { $0 })], headers: ["Vary": "Authorization"])
            }
            server.route(.put, "/notes/:id") { request, _ in write(request) }
            server.route(.patch, "/notes/:id") { request, _ in write(request) }
            let storage = try SQLiteStorage(path: directory.path("notes.sqlite"))
            try await body(server, note) { account, strategy in
                let session = NetworkingSession(url: server.url, headers: ["Authorization": "Bearer \(account)"])
                return SharedNotes(store: session, storage: storage, strategy: strategy)
            }
        }
    }

    @Test("a remote-first write folded into another account's unsent write answers the server's copy for its caller")
    func foldedWriteAnswersTheServersCopy() async throws {
        try await withSharedNotes { server, _, notes in
            // Given: A reads note 1 (its copy names A) and edits it locally: an entry never sent
            var note = try await notes("A", .remoteFirst).read("1").value.value
            #expect(note.viewer == "A")
            note.title = "by A"
            _ = try await notes("A", recordOnly).update(note).value

            // When: B patches the entity A's copy describes, remote-first: the patch folds into
            // A's unsent entry, which goes now with B's credential
            note.title = "by B"
            let answer = try await notes("B", .remoteFirst).patch(note).value

            // Then: one write went, and B is answered the server's copy of it for B (its viewer,
            // its stamp), as the store holds it, never the entity it sent labelled as the server's
            let writes = server.requests.filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["PUT"])
            #expect(writes.first?.header("authorization") == "Bearer B")
            #expect(answer.origin == .remote)
            #expect(answer.value.title == "by B")
            #expect(answer.value.viewer == "B")
            #expect(answer.value.stamp == 2)
            let stored = try await notes("B", .localFirst).read("1").value.value
            #expect(stored == answer.value)
        }
    }

    @Test("a write's answer under a later pending write leaves no other account's field standing as the app's change")
    func writeAnswerUnderPendingWriteTakesTheServersFields() async throws {
        try await withSharedNotes { _, note, notes in
            // Given: A read note 1; its first edit of it (an entity the app made, no viewer) could
            // not go (503: queued, sent once), a second edit queued behind it, and B's read of
            // note 1 stored B's copy under them (the pending edit on top, viewer B from B's copy)
            _ = try await notes("A", .remoteFirst).read("1").value
            note.withLock { $0.refused = ["first"] }
            let first = try await notes("A", .remoteFirst).update(ViewedNote(id: "1", title: "first")).value
            #expect(first.origin == .local)
            _ = try await notes("A", recordOnly).update(ViewedNote(id: "1", title: "second")).value
            let seenByB = try await notes("B", .remoteFirst).read("1").value.value
            #expect(seenByB.title == "second" && seenByB.viewer == "B")

            // When: A's forwarder delivers the first edit (answered for A) while the second
            // cannot go yet
            note.withLock { $0.refused = ["second"] }
            let report = try await Forwarder(for: notes("A", .remoteFirst)).flush().value
            #expect(report.delivered == 1 && report.retrying == 1)

            // Then: A's read shows its pending edit over the server's copy for A: B's viewer,
            // never the app's, is not taken for part of the edit
            let read = try await notes("A", .remoteFirst).read("1").value
            #expect(read.origin == .remote)
            #expect(read.value.title == "second")
            #expect(read.value.viewer == "A")
        }
    }
}
