import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// Messages through the store's HTTP cache, with a strategy, a default max-age and a clock.
struct CachingMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var configuration = RepositoryConfiguration()
    var synchronization = SynchronizationConfiguration(
        pagination: .pageQuery(page: "_page", limit: "_limit", size: 2), prune: true)
}

/// A stub server serving validators with three messages, a store of `kind`, a manual clock, and
/// a repository over them.
struct HTTPCacheFixture {
    let server: StubServer
    let storage: any Storage
    let session: NetworkingSession
    let clock: ManualForwarderClock

    func messages(
        _ strategy: Strategy = .remoteFirst, session: NetworkingSession? = nil, defaultMaxAge: Int? = nil
    ) -> CachingMessages {
        var configuration = RepositoryConfiguration(defaultMaxAge: defaultMaxAge)
        configuration.cacheClock = clock
        return CachingMessages(
            store: session ?? self.session, storage: storage, strategy: strategy, configuration: configuration)
    }

    /// The GETs the server answered for `path`.
    func gets(_ path: String) -> [RecordedRequest] {
        server.requests.filter { $0.method == "GET" && $0.path == path }
    }

    /// The store's HTTP cache entries.
    func cacheEntries() async throws -> [StoredRecord] {
        try await storage.fetch(collection: "__depot_http_cache", matching: .all)
    }

    /// A session to the server with `headers`.
    func session(headers: [String: String]) -> NetworkingSession {
        NetworkingSession(
            url: server.url, headers: headers,
            configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(60))))
    }
}

func withHTTPCacheFixture(_ kind: StorageKind, _ body: (HTTPCacheFixture) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await withStubServer { server in
        server.resource(
            "messages",
            objects: [
                ["id": "1", "text": "one"], ["id": "2", "text": "two"], ["id": "3", "text": "three"],
            ])
        server.servesValidators = true
        let storage = try await kind.make(in: directory)
        let session = NetworkingSession(
            url: server.url, configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(60))))
        try await body(
            HTTPCacheFixture(server: server, storage: storage, session: session, clock: ManualForwarderClock()))
    }
}
