import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A server that requires `If-Match` on writes to note 1 (428 without it, 412 with a stale one),
/// as flask-smorest's ETag feature does; its list carries no ETags.
private final class RequiringServer: Sendable {
    let note = LockedValue<(object: JSONObject, version: Int)>((["id": 1, "title": "server"], 1))

    var etag: String { "\"v\(note.withLock { $0.version })\"" }

    /// Another client's edit.
    func edit(_ title: String) {
        note.withLock {
            $0.object["title"] = .string(title)
            $0.version += 1
        }
    }

    func install(on server: StubServer) {
        server.route(.get, "/notes") { _, _ in .json([.object(self.note.withLock { $0.object })]) }
        server.route(.get, "/notes/1") { _, _ in
            let (object, version) = self.note.withLock { ($0.object, $0.version) }
            return .json(.object(object), headers: ["ETag": "\"v\(version)\""])
        }
        server.route(.put, "/notes/1") { request, _ in
            guard let ifMatch = request.header("If-Match") else {
                return .json(["code": 428, "status": "Precondition Required"], status: 428)
            }
            return self.note.withLock { note -> StubResponse in
                guard ifMatch == "\"v\(note.version)\"" else { return .json(["code": 412], status: 412) }
                note.object = request.json?.objectValue ?? note.object
                note.object["id"] = 1
                note.version += 1
                return .json(.object(note.object), headers: ["ETag": "\"v\(note.version)\""])
            }
        }
    }
}

/// Notes on that server.
private struct RequiringNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = StampedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(push: true, pushMode: .each) }
}

@Suite struct PreconditionRequiredTests {
    private func withRequiring(_ body: (StubServer, RequiringServer, RequiringNotes) async throws -> Void)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let requiring = RequiringServer()
            requiring.install(on: server)
            let notes = RequiringNotes(
                store: NetworkingSession(url: server.url),
                storage: try SQLiteStorage(path: directory.path("notes.sqlite")))
            // The app knows the note from a list: no ETag for it.
            _ = try await notes.readAll().value
            try await body(server, requiring, notes)
        }
    }

    private func puts(_ server: StubServer) -> [String?] {
        server.requests.filter { $0.method == "PUT" }.map { $0.header("If-Match") }
    }

    @Test("a direct update answered 428 reads the ETag and goes again under If-Match when the server is unchanged")
    func directResend() async throws {
        try await withRequiring { server, requiring, notes in
            let answer = try await notes.update(StampedNote(id: 1, title: "mine")).value
            #expect(answer.origin == .remote && answer.value.title == "mine")
            #expect(puts(server) == [nil, "\"v1\""])
            #expect(requiring.note.withLock { $0.object["title"] } == "mine")
        }
    }

    @Test("a direct update answered 428 over a copy changed on the server is a conflict, not an overwrite")
    func directConflict() async throws {
        try await withRequiring { server, requiring, notes in
            requiring.edit("theirs")
            let error = await #expect(throws: DepotError.self) {
                try await notes.update(StampedNote(id: 1, title: "mine")).value
            }
            #expect(error?.code == .conflict && error?.status == 428)
            #expect(puts(server) == [nil])
            #expect(requiring.note.withLock { $0.object["title"] } == "theirs")
        }
    }

    @Test(
        "a queued update answered 428 goes again under If-Match, or to the conflict policy when the copy changed",
        arguments: [false, true])
    func forwarded(changed: Bool) async throws {
        try await withRequiring { server, requiring, notes in
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            _ = try await offline.update(StampedNote(id: 1, title: "mine")).value
            if changed { requiring.edit("theirs") }

            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty)

            let stored = try await notes.storage.fetch(collection: "notes", id: "1")
            #expect(try await notes.storage.outbox(OutboxQuery(selection: .all)).isEmpty)
            if changed {
                // The conflict policy (server wins) decided: nothing overwritten.
                #expect(puts(server) == [nil])
                #expect(requiring.note.withLock { $0.object["title"] } == "theirs")
                #expect(stored?.object["title"] == "theirs")
            } else {
                #expect(puts(server) == [nil, "\"v1\""])
                #expect(requiring.note.withLock { $0.object["title"] } == "mine")
                #expect(stored?.syncState == .synced && stored?.etag == "\"v2\"")
            }
        }
    }
}
