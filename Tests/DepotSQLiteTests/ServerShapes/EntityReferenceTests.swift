import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A to-do list whose id the server assigns (`Int` or `String`).
struct TodoList<ID: Codable & Hashable & Sendable & PathComponentConvertible>: Codable, Identifiable, Sendable {
    var id: ID
    var title: String
}

/// An item of a ``TodoList``, naming it by `listID`; its own id is the app's.
struct TodoItem<ListID: Codable & Hashable & Sendable>: Codable, Identifiable, Sendable {
    var id: String
    var title: String
    var listID: ListID
}

/// Lists kept in SQLite.
struct TodoLists<ID: Codable & Hashable & Sendable & PathComponentConvertible>: CRUDNetworkingStorageRepository {
    typealias Entity = TodoList<ID>
    let store: Networking
    let storage: Storage
    let path = "lists"
    var strategy: Strategy
}

/// Items kept in SQLite, declaring that `listID` names a list.
struct TodoItems<ListID: Codable & Hashable & Sendable>: CRUDNetworkingStorageRepository {
    typealias Entity = TodoItem<ListID>
    let store: Networking
    let storage: Storage
    let path = "items"
    var strategy: Strategy
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.references = [EntityReference(key: "listID", collection: "lists")]
        return configuration
    }
}

/// A child created offline for a parent created offline names the parent's server id once the
/// parent's create is delivered, and never the temporary id (issue 42, #13).
@Suite struct EntityReferenceTests {
    private let recordOnly = Strategy(Rule(target: .local, synchronize: false))

    /// Whether `json` holds `text` as a value anywhere (a string, or an integer spelled so).
    private func mentions(_ json: JSON, _ text: String) -> Bool {
        switch json {
        case .string(let value): value == text
        case .integer(let number): String(number) == text
        case .array(let elements): elements.contains { mentions($0, text) }
        case .object(let object): object.values.contains { mentions($0, text) }
        default: false
        }
    }

    /// Whether any request the server received carried `text` in its path or body.
    private func sent(_ server: StubServer, _ text: String) -> Bool {
        server.requests.contains { $0.path.contains(text) || $0.json.map { mentions($0, text) } == true }
    }

    /// Offline: a list, then an item naming it; back online, one flush (or, with `refusals`,
    /// a first flush in which the list's create is answered 503 while the item's lane runs).
    private func childFollowsParent<ID: Codable & Hashable & Sendable & PathComponentConvertible>(
        _: ID.Type, idStyle: StubIDStyle, serverID expected: JSON, refusals: Int = 0
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: a server that gives lists their ids (from 7), and, while it is away, a list
            // (its id one Depot makes) and an item naming that list
            server.resource("lists", idStyle: idStyle)
            server.assignIDs(startingAt: 7, for: "lists")
            server.resource("items")
            let storage = try SQLiteStorage(path: directory.path("r.sqlite"))
            let session = NetworkingSession(url: server.url)
            let lists = TodoLists<ID>(store: session, storage: storage, strategy: recordOnly)
            let items = TodoItems<ID>(store: session, storage: storage, strategy: recordOnly)
            try await server.goOffline()
            // (an `Int` id Depot makes for a dictionary without one; a `String` id the app asks
            // Depot to make, since a dictionary gets a UUID of the app's)
            let list: TodoList<ID>
            if ID.self == String.self {
                let id = try #require(TemporaryID.make(ID.self))
                list = try await lists.create(TodoList(id: id, title: "groceries")).value.value
            } else {
                list = try await lists.create(["title": "groceries"]).value.value
            }
            #expect(try await lists.isTemporary(list.id))
            _ = try await items.create(TodoItem(id: "i1", title: "milk", listID: list.id)).value
            try await server.goOnline()
            let temporary = list.id.pathComponent

            // When: the outbox is flushed (the list's create refused for now first, with
            // `refusals`, while the item goes in a lane of its own)
            let forwarder = Forwarder(
                storage: storage, repositories: [lists, items],
                configuration: ForwarderConfiguration(maximumConcurrency: refusals > 0 ? 2 : 1))
            if refusals > 0 {
                server.inject(.status(503), times: refusals, pathPrefix: "/lists")
                let first = try await forwarder.flush().value
                // The item waited for its list: nothing of it reached the server
                #expect(first.delivered == 0)
                #expect(!server.requests.contains { $0.path.hasPrefix("/items") })
                #expect(server.objects(in: "items").isEmpty)
            }
            let report = try await forwarder.flush().value

            // Then: the server's item and the local one name the list's server id, and no
            // request carried the temporary id
            #expect(report.rejected.isEmpty)
            #expect(report.errors.isEmpty)
            let serverList = try #require(server.objects(in: "lists").first)
            let serverID = try #require(serverList["id"])
            #expect(serverID == expected)
            let serverItem = try #require(server.objects(in: "items").first)
            #expect(serverItem["listID"] == serverID)
            let item = try #require(try await storage.fetch(collection: "items", id: "i1"))
            #expect(item.object["listID"] == serverID)
            #expect(item.syncState == .synced)
            #expect(!sent(server, temporary))
            #expect(await forwarder.pendingCount == 0)
        }
    }

    @Test("an item made offline names its offline list's server Int id after the flush")
    func intIDs() async throws {
        try await childFollowsParent(Int.self, idStyle: .integer, serverID: .integer(7))
    }

    @Test("an item made offline names its offline list's server String id after the flush")
    func stringIDs() async throws {
        try await childFollowsParent(String.self, idStyle: .string, serverID: .string("7"))
    }

    @Test("an item's create waits while its list's create is refused for now, then goes with the list's id")
    func heldWhileParentWaits() async throws {
        try await childFollowsParent(Int.self, idStyle: .integer, serverID: .integer(7), refusals: 1)
    }
}
