import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note whose `author` is written even when nil (`"author": null`), as a hand-written
/// `encode(to:)` writes it: the store's record holds the cleared field as `null`.
private struct AuthoredNote: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var title: String
    var author: String?

    enum CodingKeys: String, CodingKey { case id, title, author }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(author, forKey: .author)
    }
}

/// Authored notes on a SQLite store.
private struct AuthoredNotes: CRUDNetworkingStorageRepository {
    typealias Entity = AuthoredNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
}

/// A field the app cleared, whose write is still to go, stays cleared in the store when an
/// earlier write's answer (the server's older value of it) arrives under it.
@Suite struct ClearedFieldUnderAnswerTests {
    @Test("an earlier write's answer does not bring back a field a pending write clears")
    func clearedFieldStaysClearedUnderAnswer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: the server's note 1 by "ann"; it answers 503 to writes of the titles in `refused`
            let note = LockedValue<JSONObject>(["id": "1", "title": "server", "author": "ann"])
            let refused = LockedValue<Set<String>>([])
            server.route(.get, "/notes/:id") { _, _ in .json(.object(note.withLock { $0 })) }
            server.route(.put, "/notes/:id") { request, _ in
                guard case .object(let body)? = request.json,
                    let title = body["title"]?.stringValue, !refused.withLock({ $0.contains(title) })
                else { return .json(["error": "unavailable"], status: 503) }
                return .json(
                    .object(
                        note.withLock { note in
                            for (key, value) in body { note[key] = value }
                            return note
                        }))
            }
            let storage = try SQLiteStorage(path: directory.path("notes.sqlite"))
            let session = NetworkingSession(url: server.url)
            func notes(_ strategy: Strategy) -> AuthoredNotes {
                AuthoredNotes(store: session, storage: storage, strategy: strategy)
            }
            _ = try await notes(.remoteFirst).read("1").value

            // And: a first edit that could not go (503: queued), and a second, queued behind it,
            // that clears the author
            refused.withLock { $0 = ["first"] }
            let first = try await notes(.remoteFirst).update(AuthoredNote(id: "1", title: "first", author: "ann")).value
            #expect(first.origin == .local)
            _ = try await notes(recordOnly).update(AuthoredNote(id: "1", title: "second", author: nil)).value

            // When: the forwarder delivers the first edit (answered with author "ann") while the
            // second cannot go yet
            refused.withLock { $0 = ["second"] }
            let report = try await Forwarder(for: notes(.remoteFirst)).flush().value
            #expect(report.delivered == 1 && report.retrying == 1)

            // Then: the store shows the pending edit whole: the author the app cleared stays cleared
            let stored = try await notes(.localFirst).read("1").value.value
            #expect(stored == AuthoredNote(id: "1", title: "second", author: nil))

            // And: once the second edit goes, the server has it cleared too
            refused.withLock { $0 = [] }
            let last = try await Forwarder(for: notes(.remoteFirst)).flush().value
            #expect(last.delivered == 1)
            #expect(note.withLock { $0["author"] } == .null)
        }
    }
}
