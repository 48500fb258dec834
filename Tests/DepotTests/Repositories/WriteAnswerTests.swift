import Depot
import DepotTesting
import Foundation
import Testing

/// Notes on a server whose write answers are not the entity (django-tastypie, CRUD routers).
struct AnsweredNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct AnsweredNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = AnsweredNote
    let store: Networking
    let storage: Storage
    let path = "notes/"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration {
        RepositoryConfiguration(conditionalWrites: false, itemTrailingSlash: true, patchFormat: .json)
    }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .none, pushMode: .each)
    }
}

struct RemoteAnsweredNotes: CRUDNetworkingRepository {
    typealias Entity = AnsweredNote
    let store: Networking
    let path = "notes/"
    var configuration: RepositoryConfiguration { RepositoryConfiguration(itemTrailingSlash: true) }
}

/// A CRUD router's notes: lists and write answers in `{"rows": […]}`.
struct RowsNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = AnsweredNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { RepositoryConfiguration(collectionEnvelope: "rows") }
    var synchronization: SynchronizationConfiguration {
        // The stub answers the whole list in one `{"rows": […]}`, which names no end: `.none`.
        SynchronizationConfiguration(pagination: .none, pushMode: .each)
    }
}

/// A CRUD router's notes whose batch route answers a bare array (a serializer with `many=True`)
/// while its lists come in `{"rows": […]}`.
struct RowsBatchNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = AnsweredNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { RepositoryConfiguration(collectionEnvelope: "rows") }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .none, pushMode: .batch(Route(.post, "notes/collection")))
    }
}

/// The same, with the id the server's own: never sent in a body.
struct ServerIDNotes: CRUDNetworkingRepository {
    typealias Entity = AnsweredNote
    let store: Networking
    let path = "notes/"
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(itemTrailingSlash: true)
        configuration.serverOwnedKeys = ["id"]
        return configuration
    }
}

@Suite struct WriteAnswerTests {
    /// A create's answers that are not the entity, each giving the id 7.
    static func createAnswer(_ index: Int, server: StubServer) -> StubResponse {
        switch index {
        case 0: .empty(status: 201, headers: ["Location": "/notes/7/"])
        case 1: .empty(status: 201, headers: ["Location": server.url.absoluteString + "/notes/7/"])
        case 2: .json([["id": 7]], status: 201)
        default: .json(["id": 7], status: 201)
        }
    }

    @Test(
        "a create answered without the entity (Location, absolute Location, [{id}], {id}) takes the server's id",
        arguments: [0, 1, 2, 3])
    func create(index: Int) async throws {
        try await withStubServer { server in
            // Given
            server.route(.post, "notes/", response: Self.createAnswer(index, server: server))
            let notes = AnsweredNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            // When
            let created = try await notes.create(AnsweredNote(id: 0, title: "a")).value.value
            // Then
            #expect(created == AnsweredNote(id: 7, title: "a"))
            let stored = try await notes.storage.fetch(collection: "notes/", id: "7")
            #expect(stored?.syncState == .synced)
            let remote = RemoteAnsweredNotes(store: NetworkingSession(url: server.url))
            #expect(try await remote.create(AnsweredNote(id: 0, title: "b")).value == AnsweredNote(id: 7, title: "b"))
        }
    }

    @Test("an offline create delivered to a server that answers 201 with a Location moves to the server's id")
    func offlineCreate() async throws {
        try await withStubServer { server in
            // Given
            server.route(.post, "notes/", response: .empty(status: 201, headers: ["Location": "/notes/7/"]))
            server.route(.put, "notes/:id/", response: .empty(status: 204))
            server.route(.get, "notes/", response: .json([["id": 7, "title": "offline"]]))
            server.route(.get, "notes/:id/", response: .json(["id": 7, "title": "offline"]))
            var notes = AnsweredNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline"]).value.value
            #expect(draft.id < 0)
            // When
            let report = try await notes.synchronize().value
            // Then
            #expect(report.errors.isEmpty)
            #expect(try await notes.serverID(of: draft.id) == 7)
            notes.strategy = .remoteFirst
            var moved = try await notes.read(7).value.value
            moved.title = "edited"
            _ = try await notes.update(moved).value
            #expect(server.requests.last.map { "\($0.method) \($0.path)" } == "PUT /notes/7/")
        }
    }

    @Test(
        "a create applied without any id (no body, no Location) is serverIDUnknown, never synced under its temporary id"
    )
    func noID() async throws {
        try await withStubServer { server in
            server.route(.post, "notes/", response: .empty(status: 201))
            server.route(.get, "notes/", response: .json([]))
            let notes = AnsweredNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline"]).value.value
            let report = try await notes.synchronize().value
            #expect(report.errors.contains { $0.code == .serverIDUnknown })
            let stored = try await notes.storage.fetch(collection: "notes/", id: String(draft.id))
            #expect(stored?.syncState != .synced)
            #expect(try await notes.serverID(of: draft.id) == nil)
        }
    }

    @Test("a PATCH answered 200 with the row without its id takes the id from the URL", arguments: [200, 202])
    func patchWithoutID(status: Int) async throws {
        try await withStubServer { server in
            server.route(.get, "notes/:id/", response: .json(["id": 3, "title": "a"]))
            server.route(.patch, "notes/:id/", response: status == 200 ? .json(["title": "b"]) : .empty(status: 202))
            let notes = AnsweredNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            var note = try await notes.read(3).value.value
            note.title = "b"
            #expect(try await notes.patch(note).value.value == AnsweredNote(id: 3, title: "b"))
            #expect(try await notes.storage.fetch(collection: "notes/", id: "3")?.syncState == .synced)
        }
    }

    @Test("a create whose body did not carry the id (server-owned) and whose answer names none is serverIDUnknown")
    func placeholderID() async throws {
        try await withStubServer { server in
            server.route(.post, "notes/", response: .empty(status: 201))
            let session = NetworkingSession(url: server.url)
            let error = await #expect(throws: DepotError.self) {
                try await ServerIDNotes(store: session).create(AnsweredNote(id: 0, title: "a")).value
            }
            #expect(error?.code == .serverIDUnknown)
            // A body that carried the client's id: that id stands.
            let created = try await RemoteAnsweredNotes(store: session).create(AnsweredNote(id: 5, title: "a")).value
            #expect(created == AnsweredNote(id: 5, title: "a"))
        }
    }

    @Test("a batch push answered with a bare array where lists come in {\"rows\": …} is delivered, not left open")
    func bareArrayBatchReply() async throws {
        try await withStubServer { server in
            let sent = LockedValue(0)
            server.route(.post, "notes/collection") { _, _ in
                sent.withLock { $0 += 1 }
                return .json([["id": 9, "title": "offline"]])
            }
            server.route(.get, "notes", response: .json(["rows": [["id": 9, "title": "offline"]]]))
            let notes = RowsBatchNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            _ = try await offline.create(AnsweredNote(id: 9, title: "offline")).value
            // When: synchronized twice
            let report = try await notes.synchronize().value
            let again = try await notes.synchronize().value
            // Then: the batch's answer is read; nothing is left to send again
            #expect(report.errors.isEmpty && report.failed == 0)
            #expect(again.errors.isEmpty && sent.withLock { $0 } == 1)
            #expect(try await notes.storage.fetch(collection: "notes", id: "9")?.syncState == .synced)
            #expect(try await notes.storage.outboxCount(OutboxQuery()) == 0)
        }
    }

    @Test("an offline create answered 201 {\"rows\": [row]} (a CRUD router) is delivered, not rejected")
    func rowsAnswer() async throws {
        try await withStubServer { server in
            server.route(.post, "notes", response: .json(["rows": [["id": 9, "title": "offline"]]], status: 201))
            server.route(.get, "notes", response: .json(["rows": [["id": 9, "title": "offline"]]]))
            let notes = RowsNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            var offline = notes
            offline.strategy = Strategy(Rule(target: .local, synchronize: false))
            let draft = try await offline.create(["title": "offline"]).value.value
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.failed == 0)
            #expect(try await notes.serverID(of: draft.id) == 9)
            #expect(try await notes.storage.fetch(collection: "notes", id: "9")?.syncState == .synced)
        }
    }
}
