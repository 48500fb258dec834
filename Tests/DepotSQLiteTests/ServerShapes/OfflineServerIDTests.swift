import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note with a `String` or `UUID` id the server assigns, refusing it in a body: `id` is
/// declared the server's.
private struct AssignedNotes<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository,
    SynchronizableRepository
where Entity.ID: PathComponentConvertible {
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = Strategy(Rule(target: .local, synchronize: false))
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.serverOwnedKeys = ["id"]
        return configuration
    }
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(pushMode: .each) }
}

private struct StringNote: Codable, Identifiable, Sendable {
    var id: String
    var title: String
}

private struct UUIDNote: Codable, Identifiable, Sendable {
    var id: UUID
    var title: String
}

@Suite struct OfflineServerIDTests {
    private func deliver<Entity: Codable & Identifiable & Sendable>(
        _ type: Entity.Type, idStyle: StubIDStyle
    ) async throws -> (draft: Entity.ID, server: Entity.ID?, bodies: [JSON], objects: [JSONObject])
    where Entity.ID: PathComponentConvertible {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        return try await withStubServer { server in
            server.resource("notes", idStyle: idStyle)
            server.assignIDs(for: "notes")
            let notes = AssignedNotes<Entity>(
                store: NetworkingSession(url: server.url), storage: try SQLiteStorage(path: directory.path("n.sqlite")))
            let draft = try await notes.create(["title": "offline"]).value.value.id
            _ = try await notes.synchronize().value
            let bodies = server.requests.filter { $0.method == "POST" }.compactMap(\.json)
            return (draft, try await notes.serverID(of: draft), bodies, server.objects(in: "notes"))
        }
    }

    @Test("an offline create with String ids the server assigns: its local id never sent, the server's adopted")
    func stringIDs() async throws {
        let outcome = try await deliver(StringNote.self, idStyle: .string)
        #expect(outcome.bodies == [["title": "offline"]])
        let id = try #require(outcome.server)
        #expect(id != outcome.draft && outcome.objects.map { $0["id"] } == [.string(id)])
    }

    @Test("an offline create with UUID ids the server assigns: its local id never sent, the server's adopted")
    func uuidIDs() async throws {
        let outcome = try await deliver(UUIDNote.self, idStyle: .uuid)
        #expect(outcome.bodies == [["title": "offline"]])
        let id = try #require(outcome.server)
        #expect(id != outcome.draft)
        #expect(outcome.objects.compactMap { $0["id"]?.stringValue.flatMap(UUID.init(uuidString:)) } == [id])
    }
}
