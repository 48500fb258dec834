import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// A repository with the outbox knobs a test sets: strategy and conflict policy.
struct OutboxMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var conflictPolicy: ConflictPolicy = .serverWins
}

/// Writes recorded only: a local rule that does not send on.
let recordOnly = Strategy(Rule(target: .local, synchronize: false))

/// What an outbox test works with: a stub server serving `messages`, a SQLite file (or a store
/// in memory), a repository and a manual clock.
struct OutboxFixture {
    let server: StubServer
    let storage: Storage
    let session: NetworkingSession
    let clock: ManualForwarderClock

    func repository(strategy: Strategy = .remoteFirst, conflictPolicy: ConflictPolicy = .serverWins) -> OutboxMessages {
        OutboxMessages(store: session, storage: storage, strategy: strategy, conflictPolicy: conflictPolicy)
    }

    /// A forwarder on `repository` (the fixture's remote-first one when nil), on the manual clock;
    /// `requestTimeout` caps each send (the forwarder's 10 s by default).
    func forwarder(
        _ repository: OutboxMessages? = nil, maximumConcurrency: Int = 1, pageSize: Int = 64,
        requestTimeout: Duration = .seconds(10)
    ) -> Forwarder {
        Forwarder(
            for: repository ?? self.repository(),
            configuration: ForwarderConfiguration(
                maximumConcurrency: maximumConcurrency, baseDelay: .seconds(1), jitter: 0, pageSize: pageSize,
                requestTimeout: requestTimeout, clock: clock))
    }

    func stored(_ id: String) async throws -> StoredRecord? {
        try await storage.fetch(collection: "messages", id: id)
    }

    /// Opens the session's connection with one answered `GET /messages`, so that an answer a test
    /// holds later is not a new connection's first. On Linux, URLSession (swift-corelibs-
    /// foundation's `_MultiHandle`) keeps the write-readiness source of a new connection's connect
    /// until its first answer, and it fires without pause: a held first answer keeps a core busy
    /// (2.4 s of CPU in a 3 s hold, measured with `/usr/bin/time`), which slows every other test.
    func openConnection() async throws {
        _ = try await session.send(NetworkRequest(method: .get, path: "messages"))
    }

    func outbox(_ selection: OutboxQuery.Selection = .all) async throws -> [OutboxEntry] {
        try await storage.outbox(OutboxQuery(selection: selection))
    }

    /// The server's object with `id`.
    func serverObject(_ id: String) -> JSONObject? {
        server.objects(in: "messages").first { $0["id"] == .string(id) }
    }

    /// How many writes the server applied to `id`.
    func applied(_ id: String) -> [StubAppliedWrite] {
        server.appliedWrites.filter { $0.id == id }
    }
}

/// The kinds of store an outbox test runs on.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case memory
    var description: String { rawValue }
}

/// A stub server with `objects` in `messages`, and a fresh store of `kind`; the session times a
/// request out after `timeout` (a test that waits for a timeout gives one), else after 10 s
/// scaled by ``TestTimeScale`` (nothing here waits for that one).
func withOutboxFixture(
    _ kind: StoreKind = .sqlite, objects: [JSONObject] = [], timeout: Duration? = nil,
    _ body: (OutboxFixture) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await withStubServer { server in
        server.resource("messages", objects: objects)
        let storage: Storage =
            switch kind {
            case .sqlite: try SQLiteStorage(path: directory.path("outbox.sqlite"))
            case .memory: InMemoryStorage()
            }
        let session = NetworkingSession(
            url: server.url, configuration: SessionConfiguration(timeout: timeout ?? TestTimeScale.scaled(.seconds(10)))
        )
        try await body(OutboxFixture(server: server, storage: storage, session: session, clock: ManualForwarderClock()))
    }
}
