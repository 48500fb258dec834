import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Messages pulled incrementally, by the stub's `updated_at` counter, deletions flagged.
struct IncrementalMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            prune: true,
            incremental: IncrementalPull(
                parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted")))
    }
}

@Suite struct IncrementalPullTests {
    private func withIncremental(
        _ kind: StoreKind, _ body: (StubServer, IncrementalMessages, NetworkingSession) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("messages", objects: messageObjects(1...50))
            server.trackChanges(for: "messages")
            let storage: Storage =
                switch kind {
                case .sqlite: try SQLiteStorage(path: directory.path("incremental.sqlite"))
                case .memory: InMemoryStorage()
                }
            let session = NetworkingSession(url: server.url)
            try await body(server, IncrementalMessages(store: session, storage: storage), session)
        }
    }

    /// Sends `method` to `path` with `body`, as another client of the server would.
    private func write(
        _ session: NetworkingSession, _ method: NetworkRequest.Method, _ path: String, _ body: JSONObject? = nil
    )
        async throws
    {
        var request = NetworkRequest(method: method, path: path)
        if let body {
            request.body = try JSON.object(body).serialized()
            request.headers[.contentType] = "application/json"
        }
        _ = try await session.send(request)
    }

    private func updatedAfter(_ server: StubServer) -> [String?] {
        server.requests.filter { $0.method == "GET" }.map { $0.query["updated_after"] }
    }

    @Test(
        "a full pull, then only what changed: updates, creations, flagged deletions, a local change kept",
        arguments: StoreKind.allCases)
    func incremental(kind: StoreKind) async throws {
        try await withIncremental(kind) { server, messages, session in
            let first = try await messages.synchronize().value
            #expect(!first.incremental && first.pulled == 50 && first.pullCompleted)
            // Changes on the server, and one local change the server's deletion must not erase
            try await write(session, .put, "messages/3", ["id": "3", "text": "three, edited"])
            try await write(session, .delete, "messages/4")
            try await write(session, .post, "messages", ["id": "51", "text": "new"])
            try await write(session, .delete, "messages/5")
            try await messages.storage.transaction { tx in
                guard var five = try tx.fetch(collection: "messages", id: "5") else { return }
                five.object["text"] = "five, mine"
                five.syncState = .updated
                try tx.upsert(five)
            }
            // When
            var configuration = messages.synchronization
            configuration.push = false
            let second = try await SyncOnly(base: messages, synchronization: configuration).synchronize().value
            // Then: one request, from the stored cursor (inclusive: the boundary row comes again)
            #expect(second.incremental && second.pullCompleted && second.errors.isEmpty)
            #expect(updatedAfter(server) == [nil, "50"])
            #expect(second.pulled == 3)  // 50 (the boundary), 3, 51
            #expect(second.removed == 1 && second.conflicts == 1 && second.pruned == 0)
            let stored = try await messages.storage.fetch(collection: "messages", matching: Criteria())
            #expect(stored.count == 50)  // 4 gone, 51 new, 5 kept with its change
            #expect(stored.first { $0.id == "3" }?.object["text"] == "three, edited")
            #expect(stored.first { $0.id == "5" }?.syncState == .updated)
            // A reset makes the next pull a full one again
            try await messages.resetPullCursor().value
            let third = try await SyncOnly(base: messages, synchronization: configuration).synchronize().value
            #expect(!third.incremental && third.pullCompleted)
            #expect(updatedAfter(server).last == .some(nil))
        }
    }

    @Test("a pull that fails keeps the old cursor: the next one repeats the gap", arguments: StoreKind.allCases)
    func failureKeepsCursor(kind: StoreKind) async throws {
        try await withIncremental(kind) { server, messages, session in
            _ = try await messages.synchronize().value
            try await write(session, .put, "messages/7", ["id": "7", "text": "seven"])
            server.inject(.status(500), times: 1, pathPrefix: "/messages")
            let failed = try await messages.synchronize().value
            #expect(!failed.pullCompleted && !failed.errors.isEmpty)
            let again = try await messages.synchronize().value
            #expect(again.pullCompleted && again.incremental)
            #expect(updatedAfter(server) == [nil, "50", "50"])
            #expect(try await messages.storage.fetch(collection: "messages", id: "7")?.object["text"] == "seven")
        }
    }

    @Test(
        "a write racing a paged pull, to a page already read, is pulled by the next pull", arguments: StoreKind.allCases
    )
    func racingWrite(kind: StoreKind) async throws {
        try await withIncremental(kind) { server, messages, session in
            server.setPaging(maximumSize: 10, for: "messages")
            let paged = SyncOnly(
                base: messages,
                synchronization: SynchronizationConfiguration(
                    pagination: .linkHeader, prune: true, query: ["_limit": "10"],
                    incremental: messages.synchronization.incremental))
            // Page 2's answer waits (until the test opens the gate, however slow the machine);
            // meanwhile another client changes message 3 (page 1).
            let gate = StubGate()
            server.inject(.delay(.zero), times: 1, pathPrefix: "/messages")
            server.inject(.hold(gate), times: 1, pathPrefix: "/messages")
            let pull = Task { try await paged.synchronize().value }
            #expect(await eventuallyTrue { server.requests.count >= 2 })
            try await write(session, .put, "messages/3", ["id": "3", "text": "raced"])
            gate.open()
            let first = try await pull.value
            #expect(first.pullCompleted && first.pulled == 50 && first.pages == 5)
            #expect(
                try await messages.storage.fetch(collection: "messages", id: "3")?.object["text"] == "server 3")
            // The cursor is the largest stamp the pull saw (50), below the racing write's (51).
            let next = try await paged.synchronize().value
            #expect(next.incremental && next.pulled >= 1)
            #expect(try await messages.storage.fetch(collection: "messages", id: "3")?.object["text"] == "raced")
        }
    }
}

/// A repository with another synchronization configuration over the same store.
struct SyncOnly: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let base: IncrementalMessages
    let synchronization: SynchronizationConfiguration
    var store: Networking { base.store }
    var storage: Storage { base.storage }
    let path = "messages"
}
