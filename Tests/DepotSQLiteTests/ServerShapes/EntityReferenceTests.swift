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

/// Lists kept in a store, pushed with the batch route.
struct TodoLists<ID: Codable & Hashable & Sendable & PathComponentConvertible>: CRUDNetworkingStorageRepository,
    SynchronizableRepository
{
    typealias Entity = TodoList<ID>
    let store: Networking
    let storage: Storage
    let path = "lists"
    var strategy: Strategy
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: .automatic) }
}

/// Items kept in a store, pushed with the batch route, declaring that `listID` names a list.
struct TodoItems<ListID: Codable & Hashable & Sendable>: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = TodoItem<ListID>
    let store: Networking
    let storage: Storage
    let path = "items"
    var strategy: Strategy
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: .automatic) }
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.references = [EntityReference(key: "listID", collection: "lists")]
        return configuration
    }
}

/// A child created offline for a parent created offline names the parent's server id once the
/// parent's create is delivered, and never the temporary id (issue 42, #13).
@Suite struct EntityReferenceTests {
    /// How the writes are made and delivered.
    enum Road: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Recorded only, then a forwarder's flush.
        case flush
        /// Local-first (each tries its immediate send), then a flush.
        case localFirst
        /// Recorded only, then `synchronize()` of the items first (the item waits), the lists,
        /// and the items again, each with the batch route.
        case synchronize
        var description: String { rawValue }
    }

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

    /// A fresh store of `kind` (a SQLite file in `directory`).
    private func makeStorage(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> Storage {
        switch kind {
        case .sqlite: try SQLiteStorage(path: directory.path("r.sqlite"))
        case .memory: InMemoryStorage()
        }
    }

    /// A server whose lists get `Int` ids from 7, holding `listObjects` and `itemObjects`, and a
    /// fresh store of `kind`: `body` gets the server and both repositories, recording only.
    private func withTodos(
        _ kind: StoreKind, lists listObjects: [JSONObject] = [], items itemObjects: [JSONObject] = [],
        _ body: (StubServer, TodoLists<Int>, TodoItems<Int>) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("lists", idStyle: .integer, objects: listObjects)
            server.assignIDs(startingAt: 7, for: "lists")
            server.resource("items", objects: itemObjects)
            let storage = try makeStorage(kind, in: directory)
            let session = NetworkingSession(url: server.url)
            try await body(
                server, TodoLists(store: session, storage: storage, strategy: recordOnly),
                TodoItems(store: session, storage: storage, strategy: recordOnly))
        }
    }

    /// Offline: a list, then an item naming it; back online, delivered by `road` (with
    /// `refusals`, a first flush in which the list's create is answered 503 while the item's lane
    /// runs).
    private func childFollowsParent<ID: Codable & Hashable & Sendable & PathComponentConvertible>(
        _: ID.Type, idStyle: StubIDStyle, serverID expected: JSON, kind: StoreKind, road: Road = .flush,
        refusals: Int = 0
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: a server that gives lists their ids (from 7), and, while it is away, a list
            // (its id one Depot makes) and an item naming that list
            server.resource("lists", idStyle: idStyle)
            server.assignIDs(startingAt: 7, for: "lists")
            server.resource("items")
            let storage = try makeStorage(kind, in: directory)
            let session = NetworkingSession(url: server.url)
            let strategy = road == .localFirst ? .localFirst : recordOnly
            let lists = TodoLists<ID>(store: session, storage: storage, strategy: strategy)
            let items = TodoItems<ID>(store: session, storage: storage, strategy: strategy)
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
                #expect(!server.requests.contains { $0.method != "GET" && $0.path.hasPrefix("/items") })
                #expect(server.objects(in: "items").isEmpty)
            }
            if road == .synchronize {
                let early = try await items.synchronize().value
                // The item waits for its list: nothing of it reached the server
                #expect(early.pushed == 0)
                #expect(!server.requests.contains { $0.method != "GET" && $0.path.hasPrefix("/items") })
                #expect(try await lists.synchronize().value.errors.isEmpty)
                #expect(try await items.synchronize().value.errors.isEmpty)
            } else {
                let report = try await forwarder.flush().value
                #expect(report.rejected.isEmpty)
                #expect(report.errors.isEmpty)
            }

            // Then: the server's item and the local one name the list's server id, and no
            // request carried the temporary id
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

    @Test(
        "an item made offline names its offline list's server Int id once delivered", arguments: StoreKind.allCases,
        Road.allCases)
    func intIDs(kind: StoreKind, road: Road) async throws {
        try await childFollowsParent(Int.self, idStyle: .integer, serverID: .integer(7), kind: kind, road: road)
    }

    @Test(
        "an item made offline names its offline list's server String id once delivered", arguments: StoreKind.allCases,
        Road.allCases)
    func stringIDs(kind: StoreKind, road: Road) async throws {
        try await childFollowsParent(String.self, idStyle: .string, serverID: .string("7"), kind: kind, road: road)
    }

    @Test(
        "an item's create waits while its list's create is refused for now, then goes with the list's id",
        arguments: StoreKind.allCases)
    func heldWhileParentWaits(kind: StoreKind) async throws {
        try await childFollowsParent(Int.self, idStyle: .integer, serverID: .integer(7), kind: kind, refusals: 1)
    }

    @Test(
        "a remote-first create of an item naming a queued list stays queued until the list is delivered",
        arguments: StoreKind.allCases)
    func remoteFirstWaits(kind: StoreKind) async throws {
        try await withTodos(kind) { server, lists, items in
            // Given: a list recorded for later (its id one Depot made), the server up
            var items = items
            items.strategy = .remoteFirst
            let storage = lists.storage
            let list = try await lists.create(["title": "groceries"]).value.value

            // When: a remote-first create of an item naming it
            let created = try await items.create(TodoItem(id: "i1", title: "milk", listID: list.id)).value

            // Then: it is kept queued, unsent, until a flush delivers the list and then it
            #expect(created.origin == .local)
            #expect(created.fallbackError?.code == .queuedBehindEarlierWrites)
            #expect(server.requests.isEmpty)
            let forwarder = Forwarder(storage: storage, repositories: [lists, items])
            #expect(try await forwarder.flush().value.delivered == 2)
            #expect(server.objects(in: "items").first?["listID"] == .integer(7))
            #expect(!sent(server, list.id.pathComponent))
        }
    }

    @Test(
        "an edit of a synced item moving it to a list made offline goes with the list's server id",
        arguments: StoreKind.allCases)
    func editNamesParentMadeOffline(kind: StoreKind) async throws {
        let listOne: JSONObject = ["id": 1, "title": "old"]
        try await withTodos(kind, lists: [listOne], items: [["id": "i1", "title": "milk", "listID": 1]]) {
            server, lists, items in
            // Given: item i1 of list 1 on the server and in the store; offline, a new list and
            // an edit of i1 moving it there
            var items = items
            let storage = lists.storage
            items.strategy = .remoteFirst
            _ = try await items.read("i1").value
            items.strategy = recordOnly
            let list = try await lists.create(["title": "new"]).value.value
            _ = try await items.update(TodoItem(id: "i1", title: "milk", listID: list.id)).value
            server.clearRequests()

            // When: the outbox is flushed
            let report = try await Forwarder(storage: storage, repositories: [lists, items]).flush().value

            // Then: the PUT named list 7, locally too, and nothing carried the temporary id
            #expect(report.delivered == 2)
            #expect(server.objects(in: "items").first?["listID"] == .integer(7))
            #expect(try await storage.fetch(collection: "items", id: "i1")?.object["listID"] == .integer(7))
            #expect(!sent(server, list.id.pathComponent))
        }
    }

    @Test(
        "an item written after its list was delivered, with the list's old temporary id, names the server's",
        arguments: StoreKind.allCases)
    func laterWriteFollowsMove(kind: StoreKind) async throws {
        try await withTodos(kind) { server, lists, items in
            // Given: a list made offline and delivered (the app still holds its temporary id)
            let storage = lists.storage
            let list = try await lists.create(["title": "groceries"]).value.value
            let forwarder = Forwarder(storage: storage, repositories: [lists, items])
            #expect(try await forwarder.flush().value.delivered == 1)

            // When: an item naming that temporary id is created and sent
            let item = try await items.create(TodoItem(id: "i1", title: "milk", listID: list.id)).value.value
            #expect(try await forwarder.flush().value.delivered == 1)

            // Then: it names the list's server id, in the app's hands, the store and the server
            #expect(item.listID == 7)
            #expect(try await storage.fetch(collection: "items", id: "i1")?.object["listID"] == .integer(7))
            #expect(server.objects(in: "items").first?["listID"] == .integer(7))
            #expect(!sent(server, list.id.pathComponent))
        }
    }

    /// How the list's create came to never go.
    enum Dropped: String, CaseIterable, Sendable, CustomStringConvertible {
        /// The app discarded its queued create (``Forwarder/discard(_:)``).
        case discarded
        /// The app deleted the list before its create was sent (nothing left to send for it).
        case deleted
        var description: String { rawValue }
    }

    /// Offline: a list (its id one Depot makes) and an item `i1` naming it. Returns the list.
    private func listAndItem(_ lists: TodoLists<Int>, _ items: TodoItems<Int>) async throws -> TodoList<Int> {
        let list = try await lists.create(["title": "groceries"]).value.value
        _ = try await items.create(TodoItem(id: "i1", title: "milk", listID: list.id)).value
        return list
    }

    @Test(
        "an item naming a list whose create will never go is refused unsent, not held for ever",
        arguments: StoreKind.allCases, Dropped.allCases)
    func parentNeverCreated(kind: StoreKind, dropped: Dropped) async throws {
        try await withTodos(kind) { server, lists, items in
            // Given: offline, a list (its id one Depot made) and an item naming it; then the
            // list's create is dropped, so the server will never give that list an id
            let storage = lists.storage
            let forwarder = Forwarder(storage: storage, repositories: [lists, items])
            let list = try await listAndItem(lists, items)
            switch dropped {
            case .discarded:
                let create = try #require(try await storage.outbox(OutboxQuery(selection: .all)).first)
                #expect(create.collection == "lists")
                #expect(try await forwarder.discard(create).value)
            case .deleted:
                _ = try await lists.delete(id: list.id).value
            }

            // When: the outbox is flushed
            let report = try await forwarder.flush().value

            // Then: the item's create is refused without a request, its message naming the list,
            // and stays for the app to resolve; nothing carried the temporary id
            #expect(report.delivered == 0)
            let refused = try #require(report.rejected.first)
            #expect(report.rejected.count == 1 && refused.collection == "items" && refused.entityID == "i1")
            #expect(refused.rejection?.status == nil)
            #expect(refused.rejection?.message.contains(list.id.pathComponent) == true)
            #expect(server.requests.isEmpty)
            #expect(try await forwarder.rejected.map(\.entityID) == ["i1"])
            #expect(!sent(server, list.id.pathComponent))
        }
    }

    /// Which road meets the item after its list's create was dropped.
    enum LaterRoad: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `synchronize()` of the items (the batch push sends it on its own road).
        case synchronize
        /// A local-first update of the item (its immediate send).
        case localFirst
        /// A remote-first update of the item (sent now, behind its queued create).
        case remoteFirst
        var description: String { rawValue }
    }

    @Test(
        "every road refuses an item naming a list whose create will never go, as the forwarder does",
        arguments: [StoreKind.memory, .sqlite], LaterRoad.allCases)
    func parentNeverCreatedOnEveryRoad(kind: StoreKind, road: LaterRoad) async throws {
        try await withTodos(kind) { server, lists, items in
            // Given: offline, a list (its id one Depot made) and an item naming it; then the app
            // deletes the list before its create was sent
            let storage = lists.storage
            let forwarder = Forwarder(storage: storage, repositories: [lists, items])
            let list = try await listAndItem(lists, items)
            _ = try await lists.delete(id: list.id).value

            // When: the item meets `road`
            let item = TodoItem(id: "i1", title: "oat milk", listID: list.id)
            switch road {
            case .synchronize:
                _ = try await items.synchronize().value
            case .localFirst:
                _ = try await TodoItems(store: items.store, storage: storage, strategy: .localFirst).update(item).value
            case .remoteFirst:
                // (its answer is the local copy or an error: either way it ends, unsent)
                do {
                    let sourced = try await TodoItems(store: items.store, storage: storage, strategy: .remoteFirst)
                        .update(item).value
                    #expect(sourced.origin == .local)
                } catch let error as DepotError {
                    #expect(error.code == .invalidRequest || error.code == .queuedBehindEarlierWrites, "\(error)")
                }
            }

            // Then: the item's write is refused without a request, its message naming the list,
            // and stays for the app to resolve; nothing carried the temporary id
            let refused = try await forwarder.rejected
            #expect(refused.map(\.entityID) == ["i1"])
            #expect(refused.first?.rejection?.status == nil)
            #expect(refused.first?.rejection?.message.contains(list.id.pathComponent) == true)
            #expect(!server.requests.contains { $0.method != "GET" })
            #expect(!sent(server, list.id.pathComponent))
        }
    }
}
