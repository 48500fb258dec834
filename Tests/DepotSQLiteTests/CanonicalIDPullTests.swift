import Depot
import DepotTesting
import Foundation
import Testing

/// An item named by a UUID.
private struct Item: Codable, Identifiable, Sendable {
    var id: UUID
    var name: String
}

/// Items pulled incrementally by `v`, deletions flagged.
private struct Items: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Item
    let store: Networking
    let storage: Storage
    let path = "items"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            incremental: IncrementalPull(parameter: "since", cursor: .maximum(of: "v"), deletions: .flag("deleted")))
    }
}

/// Ids in another case: a server that prints UUIDs in lower case.
@Suite struct CanonicalIDPullTests {
    @Test(
        "a pulled deletion of a UUID printed in lower case deletes the record; a quarantined row leaves when it merges",
        arguments: StorageKind.allCases)
    func lowercaseUUIDs(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let (one, two) = (UUID(), UUID())
            let page = LockedValue<JSON>([["id": .string(one.uuidString.lowercased()), "name": "a", "v": 1]])
            server.route(.get, "/items") { _, _ in .json(page.withLock { $0 }) }
            let storage = try await kind.make(in: directory)
            let items = Items(store: NetworkingSession(url: server.url), storage: storage)

            // Given: item one pulled (stored under its canonical id).
            _ = try await items.synchronize().value
            #expect(try await storage.fetch(collection: "items", id: one.uuidString)?.object["name"] == "a")

            // When: the server reports it deleted, printing its id in lower case.
            page.withLock { $0 = [["id": .string(one.uuidString.lowercased()), "deleted": true, "v": 2]] }
            let deletion = try await items.synchronize().value

            // Then: the record is gone.
            #expect(deletion.removed == 1)
            #expect(try await storage.fetch(collection: "items", id: one.uuidString) == nil)

            // When: item two comes unreadable, then readable.
            page.withLock { $0 = [["id": .string(two.uuidString.lowercased()), "name": 5, "v": 3]] }
            _ = try await items.synchronize().value
            #expect(try await items.quarantined().value.count == 1)
            page.withLock { $0 = [["id": .string(two.uuidString.lowercased()), "name": "b", "v": 4]] }
            _ = try await items.synchronize().value

            // Then: it is stored and its kept row is released; a later pull recovers nothing.
            #expect(try await storage.fetch(collection: "items", id: two.uuidString)?.object["name"] == "b")
            #expect(try await items.quarantined().value.isEmpty)
            page.withLock { $0 = [] }
            #expect(try await items.synchronize().value.recovered == 0)
        }
    }
}
