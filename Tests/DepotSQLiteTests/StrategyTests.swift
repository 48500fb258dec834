import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

struct Messages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
}

struct LocalMessages: StorageRepository {
    typealias Entity = Message
    let storage: Storage
    let collection = "messages"
}

/// A stub server with two messages (or `objects`), a SQLite file, and a repository over both.
func withFixture(
    strategy: Strategy = .remoteFirst,
    objects: [JSONObject] = [
        ["id": "1", "text": "one", "author": "ann"], ["id": "2", "text": "two", "author": "bob"],
    ],
    _ body: (StubServer, Messages, SQLiteStorage) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await withStubServer { server in
        server.resource("messages", objects: objects)
        let storage = try SQLiteStorage(path: directory.path("strategy.sqlite"))
        // The default 60 s timeout: tests take a refused connection for `.transport`, and a loaded
        // machine that descheduled the process past a shorter deadline turned it into `.timeout`.
        let session = NetworkingSession(url: server.url)
        try await body(server, Messages(store: session, storage: storage, strategy: strategy), storage)
    }
}

@Suite struct StrategyTests {
    @Test("remoteFirst with the server up: remote answers, and the store is refreshed")
    func remoteUp() async throws {
        try await withFixture { server, messages, storage in
            let one = try await messages.read("1").value
            #expect(one.origin == .remote && one.value.text == "one" && one.fallbackError == nil)
            let all = try await messages.readAll(query: ["author": "bob"]).value
            #expect(all.origin == .remote && all.value.map(\.id) == ["2"])
            let stored = try await storage.fetch(collection: "messages", matching: .all)
            #expect(stored.map(\.id) == ["1", "2"])
            #expect(stored.allSatisfy { $0.syncState == .synced && $0.snapshot == $0.object })
        }
    }

    @Test(
        "remoteFirst with the server down or failing: the local store answers, the cause reported",
        arguments: ["refused", "503"])
    func remoteDown(failure: String) async throws {
        try await withFixture { server, messages, _ in
            _ = try await messages.readAll().value  // fill the store
            if failure == "refused" { try await server.goOffline() } else { server.inject(.status(503), times: 2) }
            let one = try await messages.read("1").value
            #expect(one.origin == .local && one.value.text == "one")
            #expect(
                one.fallbackError?.code == (failure == "refused" ? .transport : .status),
                "\(one.fallbackError.map(String.init(describing:)) ?? "no error"); \(portReport(server.url.port))")
            let all = try await messages.readAll(query: ["author": "ann"]).value
            #expect(all.origin == .local && all.value.map(\.id) == ["1"])
        }
    }

    @Test("a 404 is the server's answer: no fallback")
    func notFoundNoFallback() async throws {
        try await withFixture { _, messages, storage in
            try await storage.upsert(record("9", ["text": "stale"]))
            await #expect { try await messages.read("9").value } throws: { ($0 as? DepotError)?.code == .notFound }
        }
    }

    @Test("a rule without fallback fails when the server is down")
    func noFallback() async throws {
        try await withFixture(strategy: Strategy(Rule(target: .remote))) { server, messages, _ in
            _ = try await messages.readAll().value
            try await server.goOffline()
            await #expect { try await messages.read("1").value } throws: { ($0 as? DepotError)?.code == .transport }
        }
    }

    @Test("offline writes under remoteFirst land locally, unsynced, and are not retried in the same call")
    func offlineWrites() async throws {
        try await withFixture { server, messages, storage in
            _ = try await messages.readAll().value
            try await server.goOffline()
            let created = try await messages.create(Message(id: "n1", text: "new", author: "me")).value
            #expect(
                created.origin == .local && created.fallbackError?.code == .transport
                    && created.synchronizationError == nil)
            var one = try await messages.read("1").value.value
            one.text = "edited offline"
            _ = try await messages.update(one).value
            _ = try await messages.delete(id: "2").value
            let states = try await storage.fetch(collection: "messages", matching: Criteria(includeDeleted: true))
            #expect(
                Dictionary(uniqueKeysWithValues: states.map { ($0.id, $0.syncState) }) == [
                    "1": .updated, "2": .deleted, "n1": .created,
                ])
            #expect(
                states.first { $0.id == "1" }?.snapshot?["text"] == "one", "the server's last answer is kept for PATCH")
            let visible = try await messages.readAll().value
            #expect(visible.origin == .local && visible.value.map(\.id) == ["1", "n1"])
            try await server.goOnline()
            #expect(server.objects(in: "messages").count == 2, "nothing reached the server while offline")
        }
    }

    @Test("localFirst: a miss is fetched and stored, then served locally without a request")
    func localFirstRead() async throws {
        try await withFixture(strategy: .localFirst) { server, messages, _ in
            let first = try await messages.read("1").value
            #expect(first.origin == .remote && first.fallbackError?.code == .notFound)
            let requests = server.requests.count
            let second = try await messages.read("1").value
            #expect(second.origin == .local && second.fallbackError == nil)
            #expect(server.requests.count == requests)
        }
    }

    @Test("localFirst writes are sent on; a failed send is reported and the local write stands")
    func localFirstWrites() async throws {
        try await withFixture(strategy: .localFirst) { server, messages, storage in
            let created = try await messages.create(Message(id: "L1", text: "local", author: nil)).value
            #expect(created.origin == .local && created.synchronizationError == nil)
            #expect(server.objects(in: "messages").contains { $0["id"] == "L1" })
            #expect(try await storage.fetch(collection: "messages", id: "L1")?.syncState == .synced)
            server.inject(.status(503))
            let second = try await messages.create(Message(id: "L2", text: "later", author: nil)).value
            #expect(second.value.id == "L2" && second.synchronizationError?.status == 503)
            #expect(try await storage.fetch(collection: "messages", id: "L2")?.syncState == .created)
        }
    }

    @Test("a failing local store under remoteFirst reports a synchronization error, never hides the answer")
    func syncFailureReported() async throws {
        try await withFixture { _, messages, storage in
            try storage.close()
            let one = try await messages.read("1").value
            #expect(one.origin == .remote && one.value.text == "one")
            #expect(one.synchronizationError?.code == .storage)
        }
    }

    @Test("StorageRepository: CRUD on the store alone with sync states")
    func storageRepository() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try SQLiteStorage(path: directory.path("local.sqlite"))
        let local = LocalMessages(storage: storage)
        _ = try await local.create(Message(id: "a", text: "x", author: "ann")).value
        await #expect { try await local.create(Message(id: "a", text: "y")).value } throws: {
            ($0 as? DepotError)?.code == .conflict
        }
        _ = try await local.update(Message(id: "a", text: "x2", author: "ann")).value
        #expect(try await storage.fetch(collection: "messages", id: "a")?.syncState == .created)
        #expect(try await local.readAll(Criteria(["author": "ann"])).value.map(\.text) == ["x2"])
        try await local.delete(id: "a").value
        #expect(try await storage.fetch(collection: "messages", id: "a") == nil, "never synced: gone at once")
        #expect(try await local.fetch(id: "a").value == nil)
        await #expect { try await local.read("a").value } throws: { ($0 as? DepotError)?.code == .notFound }
    }
}
