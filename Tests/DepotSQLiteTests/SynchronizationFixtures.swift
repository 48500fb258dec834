import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// The repository exactly as issue 9 writes it.
struct CachedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(batchSize: 100, pagination: .pageQuery(page: "_page", limit: "_limit", size: 500))
    }
}

/// The same with a configuration (and, for routes written by hand, a path) chosen per test.
struct SyncMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    var path = "messages"
    var synchronization: SynchronizationConfiguration
}

/// What a synchronization test works with: a stub server, a SQLite file, a session.
struct SyncFixture {
    let server: StubServer
    let storage: SQLiteStorage
    let session: NetworkingSession

    var local: LocalMessages { LocalMessages(storage: storage) }

    func repository(_ configuration: SynchronizationConfiguration) -> SyncMessages {
        SyncMessages(store: session, storage: storage, synchronization: configuration)
    }

    /// The stored record with `id`.
    func stored(_ id: String) async throws -> StoredRecord? {
        try await storage.fetch(collection: "messages", id: id)
    }

    /// The requests recorded, as `"GET /messages?_page=1&_limit=2"`.
    var requestLines: [String] {
        server.requests.map { request in
            let query = request.queryItems.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
            return "\(request.method) \(request.path)" + (query.isEmpty ? "" : "?" + query)
        }
    }
}

/// A stub server serving `messages` with `objects`, and a fresh SQLite file.
func withSyncFixture(objects: [JSONObject] = [], _ body: (SyncFixture) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await withStubServer { server in
        server.resource("messages", objects: objects)
        let storage = try SQLiteStorage(path: directory.path("sync.sqlite"))
        let session = NetworkingSession(
            url: server.url, configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(10))))
        try await body(SyncFixture(server: server, storage: storage, session: session))
    }
}

/// `["id": "1", "text": "one"]`, …
func messageObjects(_ ids: ClosedRange<Int>, text: (Int) -> String = { "server \($0)" }) -> [JSONObject] {
    ids.map { ["id": .string(String($0)), "text": .string(text($0))] }
}
