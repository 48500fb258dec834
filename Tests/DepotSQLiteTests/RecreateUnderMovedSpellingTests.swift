import Depot
import DepotTesting
import Foundation
import Testing

/// An item named by a UUID string, as the app spells it (upper case).
private struct Item: Codable, Identifiable, Sendable {
    var id: String
    var value: String
}

/// Items written remote-first.
private struct Items: CRUDNetworkingStorageRepository {
    typealias Entity = Item
    let store: Networking
    let storage: Storage
    let path = "items"
    var strategy: Strategy = .remoteFirst
}

/// A server that keeps items by their UUID in lower case and prints them so.
private func serveLowercaseItems(_ server: StubServer) -> LockedValue<[String: JSONObject]> {
    let items = LockedValue<[String: JSONObject]>([:])
    server.route(.post, "/items") { request, _ in
        guard case .object(var object)? = try? JSONDecoder().decode(JSON.self, from: request.body),
            case .string(let id)? = object["id"]
        else { return .empty(status: 400) }
        object["id"] = .string(id.lowercased())
        items.withLock { $0[id.lowercased()] = object }
        return .json(.object(object), status: 201)
    }
    server.route(.delete, "/items/:id") { _, parameters in
        let id = parameters["id", default: ""].lowercased()
        return items.withLock { $0.removeValue(forKey: id) } == nil ? .empty(status: 404) : .empty()
    }
    server.route(.get, "/items") { _, _ in
        .json(.array(items.withLock { $0.sorted { $0.key < $1.key }.map { JSON.object($0.value) } }))
    }
    return items
}

/// A create under a UUID the server once spelled another way (lower case), after that entity was
/// deleted: a new entity under the app's spelling, sent as any create.
@Suite struct RecreateUnderMovedSpellingTests {
    @Test(
        "a remote-first create again of a deleted entity the server spells in lower case is sent (seed 6404026053034234247)",
        arguments: StorageKind.allCases)
    func recreateIsSent(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let served = serveLowercaseItems(server)
            let storage = try await kind.make(in: directory)
            let items = Items(store: NetworkingSession(url: server.url), storage: storage)
            let id = "ABCDEF00-0000-4000-8000-000000ABC002"

            // Given: the entity created (the server answers with its id in lower case) and deleted
            let created = try await items.create(Item(id: id, value: "v3")).value
            #expect(created.origin == .remote && created.value.id == id.lowercased())
            let deleted = try await items.delete(id: created.value.id).value
            #expect(deleted.origin == .remote && served.withLock { $0.isEmpty })

            // When: the app creates it again under its own spelling
            let again = try await items.create(Item(id: id, value: "v20")).value

            // Then: the create reached the server, which keeps it; nothing waits in the outbox
            #expect(again.origin == .remote)
            #expect(server.requests.filter { $0.method == "POST" }.count == 2)
            #expect(served.withLock { $0[id.lowercased()]?["value"] } == "v20")
            #expect(try await storage.outbox(OutboxQuery()).isEmpty)
            let listed = try await items.readAll().value.value
            #expect(listed.map(\.value) == ["v20"])
        }
    }

    @Test(
        "a create again under the app's spelling waits behind the delete still queued under the server's (seed 6155551688188788691)",
        arguments: StorageKind.allCases, [Strategy.remoteFirst, .localFirst])
    func recreateWaitsBehindQueuedDelete(kind: StorageKind, strategy: Strategy) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let served = serveLowercaseItems(server)
            let storage = try await kind.make(in: directory)
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(1))))
            let items = Items(store: session, storage: storage)
            let id = "ABCDEF00-0000-4000-8000-000000ABC005"

            // Given: the entity created (the server answers with its id in lower case), and a
            // remote-first delete of it the server applied but whose answer it holds: the client
            // gives up and keeps the delete queued under the server's spelling
            let created = try await items.create(Item(id: id, value: "v11")).value
            #expect(created.value.id == id.lowercased())
            let gate = StubGate()
            defer { gate.open() }
            server.inject(.hold(gate), pathPrefix: "/items/")
            let deleted = try await items.delete(id: created.value.id).value
            #expect(deleted.origin == .local)
            #expect(served.withLock { $0.isEmpty })

            // When: the app creates it again under its own spelling, then the outbox is flushed
            var recreating = items
            recreating.strategy = strategy
            _ = try await recreating.create(Item(id: id, value: "v29")).value
            _ = try await Forwarder(for: items).flush().value

            // Then: the delete went before the create, so the server keeps the new entity, and the
            // store holds it synced, with nothing left to send
            let writes = server.requests.filter { $0.method != "GET" }.map(\.method)
            #expect(writes.last == "POST")
            #expect(served.withLock { $0[id.lowercased()]?["value"] } == "v29")
            #expect(try await storage.outbox(OutboxQuery()).isEmpty)
            let listed = try await items.readAll().value.value
            #expect(listed.map(\.value) == ["v29"])
        }
    }
}
