import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Server notes on a JSON:API server, stored locally, every write through the chosen strategy.
struct JSONAPINotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = .remoteFirst
    var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
    var synchronization: SynchronizationConfiguration { .jsonAPI }
}

/// Messages on a server that takes and answers `{"data": …}`, with a batch route.
struct EnvelopedSyncMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var conflictPolicy: ConflictPolicy = .serverWins
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(envelope: "data", collectionEnvelope: "data")
        configuration.requestEnvelope = "data"
        return configuration
    }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/collection")))
    }
}

@Suite struct RequestShapeRoadTests {
    private func withStore(_ body: (StubServer, SQLiteStorage, NetworkingSession) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let storage = try SQLiteStorage(path: directory.path("shape.sqlite"))
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(10)))
            try await body(server, storage, session)
        }
    }

    @Test("JSON:API through the outbox: an offline create goes as a document, the server's id adopted")
    func offlineCreate() async throws {
        try await withStore { server, storage, session in
            // Given: a server that takes only documents of type notes, without a client id
            server.route(.post, "/notes") { request, _ in
                guard request.header("content-type") == JSONAPIResource.mediaType,
                    let data = request.json?["data"]?.objectValue, data["type"] == "notes", data["id"] == nil
                else { return .json(["errors": [["detail": "does not contain primary data"]]], status: 400) }
                return .json(
                    ["data": ["type": "notes", "id": "7", "attributes": data["attributes"] ?? [:]]], status: 201)
            }
            var notes = JSONAPINotes(store: session, storage: storage)
            notes.strategy = recordOnly
            // When: made offline, delivered later
            _ = try await notes.create(ServerNote(id: -1, title: "offline")).value
            let report = try await Forwarder(for: notes).flush().value
            // Then
            #expect(report.delivered == 1 && report.rejected.isEmpty)
            let stored = try await storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.map(\.id) == ["7"] && stored.first?.syncState == .synced)
            #expect(stored.first?.object["title"] == "offline")
            let post = try #require(server.requests.last)
            #expect(
                post.json == [
                    "data": ["type": "notes", "attributes": ["title": "offline", "body": "", "done": false]]
                ])
        }
    }

    @Test("JSON:API synchronize(): a change pushed as a PATCH document, the pull paged by links.next")
    func synchronize() async throws {
        try await withStore { server, storage, session in
            let page1: JSON = [
                "data": [["type": "notes", "id": "1", "attributes": ["title": "one", "body": "", "done": true]]],
                "links": ["next": .string(server.url.absoluteString + "/notes?page%5Bnumber%5D=2")],
            ]
            let page2: JSON = [
                "data": [["type": "notes", "id": "2", "attributes": ["title": "two", "body": "", "done": false]]],
                "links": ["next": nil],
            ]
            server.route(.get, "/notes") { request, _ in
                StubResponse.json(request.query["page[number]"] == "2" ? page2 : page1)
            }
            server.route(.patch, "/notes/1") { request, _ in
                guard request.header("content-type") == JSONAPIResource.mediaType,
                    request.json?["data"]?["id"] == "1", let data = request.json?["data"]
                else { return .json(["errors": [["detail": "bad document"]]], status: 400) }
                return .json(["data": data])
            }
            try await storage.upsert(
                StoredRecord(
                    collection: "notes", id: "1", object: ["id": 1, "title": "one", "body": "", "done": false],
                    syncState: .synced))
            var notes = JSONAPINotes(store: session, storage: storage)
            notes.strategy = recordOnly
            _ = try await notes.update(ServerNote(id: 1, title: "one", done: true)).value
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.pushed == 1)
            #expect(report.pulled == 2 && report.pullCompleted)
            let patch = try #require(server.requests.first { $0.method == "PATCH" })
            #expect(patch.json?["data"]?["type"] == "notes")
            #expect(patch.json?["data"]?["attributes"]?["done"] == true)
            let stored = try await storage.fetch(collection: "notes", matching: Criteria())
            #expect(stored.map(\.id).sorted() == ["1", "2"])
            #expect(server.requests.allSatisfy { $0.header("accept") == JSONAPIResource.mediaType })
        }
    }

    @Test("a request envelope wraps the batch push and a conflict's re-send")
    func batchAndResend() async throws {
        try await withStore { server, storage, session in
            server.route(.post, "/messages/collection") { request, _ in
                guard let items = request.json?["data"]?.arrayValue else {
                    return .json(["detail": "does not contain primary data"], status: 400)
                }
                return .json(["data": .array(items)])
            }
            server.route(.get, "/messages", response: .json(["data": [["id": "a", "text": "new a"]]]))
            var messages = EnvelopedSyncMessages(store: session, storage: storage)
            messages.strategy = recordOnly
            _ = try await messages.create(Message(id: "a", text: "new a")).value
            let report = try await messages.synchronize().value
            #expect(report.errors.isEmpty && report.pushed == 1, "\(report.errors)")
            let batch = try #require(server.requests.first { $0.path == "/messages/collection" })
            #expect(batch.json == ["data": [["id": "a", "text": "new a"]]])
            // A conflict resolved by the client: the write goes again, wrapped again
            let puts = LockedValue(0)
            server.route(.put, "/messages/a") { request, _ in
                guard request.json?["data"] != nil else { return .json(["detail": "bare body"], status: 400) }
                let first = puts.withLock { count in
                    count += 1
                    return count == 1
                }
                return first
                    ? .json(["data": ["id": "a", "text": "theirs"]], status: 412)
                    : .json(["data": request.json?["data"] ?? nil])
            }
            server.route(.get, "/messages/a", response: .json(["data": ["id": "a", "text": "theirs"]]))
            messages.conflictPolicy = .clientWins
            _ = try await messages.update(Message(id: "a", text: "mine")).value
            let flushed = try await Forwarder(for: messages).flush().value
            #expect(flushed.delivered == 1 && flushed.rejected.isEmpty)
            let sent = server.requests.filter { $0.method == "PUT" }
            #expect(sent.count == 2 && sent.allSatisfy { $0.json?["data"]?["text"] == "mine" })
        }
    }
}
