import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

struct Gadget: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var name: String
}

struct Gadgets: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Gadget
    let store: Networking
    let storage: Storage
    let path = "gadgets"
    var strategy: Strategy { Strategy(Rule(target: .local, synchronize: false)) }
}

@Suite struct BatchReplyMatchingTests {
    @Test("a batch reply that echoes UUID ids in lowercase is matched to what was sent")
    func lowercaseUUIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: a server that answers the batch with the ids lowercased
            server.route(.post, "/gadgets/collection") { request, _ in
                let echoed = (request.json?.arrayValue ?? []).map { element -> JSON in
                    var object = element.objectValue ?? [:]
                    object["id"] = object["id"]?.stringValue.map { .string($0.lowercased()) }
                    return .object(object)
                }
                return .json(.array(echoed))
            }
            server.route(.get, "/gadgets", response: .json([]))
            let storage = try SQLiteStorage(path: directory.path("gadgets.sqlite"))
            let gadgets = Gadgets(store: NetworkingSession(url: server.url), storage: storage)
            let made = [Gadget(id: UUID(), name: "a"), Gadget(id: UUID(), name: "b")]
            for gadget in made { _ = try await gadgets.create(gadget).value }
            // When
            let report = try await gadgets.synchronize().value
            // Then
            #expect(report.pushed == 2 && report.errors.isEmpty, "\(report.errors)")
            let stored = try await storage.fetch(collection: "gadgets", matching: .all)
            #expect(stored.count == 2 && stored.allSatisfy { $0.syncState == .synced })
        }
    }
}
