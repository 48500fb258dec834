import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch route found missing is remembered by the session that found it, for that route only.
/// Regression: the memory was process-wide, keyed by transport type name and base URL, so a
/// second session to the same URL, or any transport without a base URL, skipped a batch endpoint
/// another server had lacked.
@Suite struct BatchRouteMemoryTests {
    /// A transport of the app's own that wraps a session but reports no base URL and no memory.
    struct PlainTransport: Networking {
        let base: NetworkingSession
        func send(_ request: NetworkRequest) async throws -> NetworkResponse { try await base.send(request) }
    }

    enum Transport: String, CaseIterable, Sendable {
        case session, plain

        func make(_ server: StubServer) -> any Networking {
            let session = NetworkingSession(url: server.url)
            return self == .session ? session : PlainTransport(base: session)
        }
    }

    /// Creates `id` locally and synchronizes it through `store` with the automatic push.
    private func push(_ id: String, through store: any Networking, storage: SQLiteStorage) async throws
        -> SynchronizationReport
    {
        _ = try await LocalMessages(storage: storage).create(Message(id: id, text: "new \(id)")).value
        let repository = SyncMessages(store: store, storage: storage, synchronization: SynchronizationConfiguration())
        return try await repository.synchronize().value
    }

    private func batchRequests(_ server: StubServer) -> Int {
        server.requests.filter { $0.method == "POST" && $0.path == "/messages/collection" }.count
    }

    @Test(
        "two sessions against two servers on one host: one lacks the batch route, the other still uses it",
        arguments: Transport.allCases)
    func twoServers(transport: Transport) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { without in
            try await withStubServer { with in
                // Given
                without.resource("messages")
                without.route(.post, "messages/collection", response: .json(["detail": "Not found."], status: 404))
                with.resource("messages")
                // When: a push to the server without the route finds it missing.
                let first = try await push(
                    "a", through: transport.make(without), storage: try SQLiteStorage(path: directory.path("1.sqlite")))
                #expect(first.pushed == 1 && first.notes.count == 1)
                // Then: the other server's batch route is still used.
                let second = try await push(
                    "b", through: transport.make(with), storage: try SQLiteStorage(path: directory.path("2.sqlite")))
                #expect(second.pushed == 1 && second.notes.isEmpty)
                #expect(batchRequests(with) == 1)
            }
        }
    }

    @Test("a second session to the same URL tries the batch route again; the first does not")
    func sameURL() async throws {
        try await withSyncFixture { fixture in
            // Given: the first session found the route missing.
            fixture.server.route(.post, "messages/collection", response: .json(["detail": "Not found."], status: 404))
            _ = try await push("a", through: fixture.session, storage: fixture.storage)
            _ = try await push("b", through: fixture.session, storage: fixture.storage)
            #expect(batchRequests(fixture.server) == 1)
            // When: another session synchronizes against the same URL.
            let report = try await push(
                "c", through: NetworkingSession(url: fixture.server.url), storage: fixture.storage)
            // Then: it asks for itself.
            #expect(report.pushed == 1 && report.notes.count == 1)
            #expect(batchRequests(fixture.server) == 2)
        }
    }
}
