import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A local-first list on a store that never had the server's list: "local store first; what it
/// lacks comes from the server".
@Suite struct LocalFirstListTests {
    /// The GETs of the messages list the server has seen.
    private func listGets(_ server: StubServer) -> Int {
        server.requests.filter { $0.method == "GET" && $0.path.hasSuffix("/messages") }.count
    }

    @Test("a local-first readAll on an empty store fetches the server's list, stores it, then answers locally")
    func emptyStoreFillsFromServer() async throws {
        try await withFixture(strategy: .localFirst) { server, messages, storage in
            // Given: the server holds two messages, the SQLite file none.
            // When
            let first = try await messages.readAll().value
            // Then: the server's rows, stored, answered from the store.
            #expect(first.value.map(\.id) == ["1", "2"])
            #expect(first.origin == .local && first.synchronizationError == nil)
            #expect(listGets(server) == 1)
            #expect(try await storage.fetch(collection: "messages", matching: .all).map(\.id) == ["1", "2"])
            // A second read of the same list answers from the store alone.
            let second = try await messages.readAll().value
            #expect(second.value.map(\.id) == ["1", "2"] && second.origin == .local)
            #expect(listGets(server) == 1)
        }
    }

    @Test("each query is filled once; a local write shows in the filled list")
    func queriesFillOnceEach() async throws {
        try await withFixture(strategy: .localFirst) { server, messages, _ in
            let anns = try await messages.readAll(query: ["author": "ann"]).value
            #expect(anns.value.map(\.id) == ["1"])
            let bobs = try await messages.readAll(query: ["author": "bob"]).value
            #expect(bobs.value.map(\.id) == ["2"])
            #expect(listGets(server) == 2)
            try await server.goOffline()
            _ = try await messages.create(Message(id: "3", text: "three", author: "ann")).value
            let again = try await messages.readAll(query: ["author": "ann"]).value
            #expect(again.value.map(\.id) == ["1", "3"] && again.origin == .local)
            try await server.goOnline()
            #expect(listGets(server) == 2)
        }
    }

    @Test("offline, a local-first list answers with what the store holds and says it may be incomplete")
    func offlineAnswersLocally() async throws {
        try await withFixture(strategy: .localFirst) { server, messages, storage in
            try await storage.upsert(record("9", ["text": "kept"]))
            try await server.goOffline()
            let offline = try await messages.readAll().value
            #expect(offline.value.map(\.id) == ["9"] && offline.origin == .local)
            #expect(offline.synchronizationError?.code == .transport)
            try await server.goOnline()
            // The next read asks again, now that the server answers.
            let online = try await messages.readAll().value
            #expect(online.value.map(\.id) == ["1", "2", "9"] && online.synchronizationError == nil)
        }
    }
}
