import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A message with a kind: this version of the app knows plain messages only.
struct KindedMessage: Codable, Identifiable, Sendable {
    enum Kind: String, Codable, Sendable { case plain }
    var id: String
    var text: String
    var kind: Kind
}

/// The same message as the next version of the app reads it: it knows polls too.
struct NewerKindedMessage: Codable, Identifiable, Sendable {
    enum Kind: String, Codable, Sendable { case plain, poll }
    var id: String
    var text: String
    var kind: Kind
}

/// Kinded messages pulled incrementally by the stub's `updated_at` counter, by an app `Entity`.
struct KindedMessages<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository,
    SynchronizableRepository
where Entity.ID == String {
    let store: Networking
    let storage: Storage
    let paged: Bool
    let path = "messages"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            pagination: paged ? .pageQuery(page: "_page", limit: "_limit", size: 2) : .none,
            incremental: IncrementalPull(parameter: "updated_after", cursor: .maximum(of: "updated_at")))
    }
}

@Suite struct UnreadablePullRowTests {
    @Test(
        "a row the app cannot read is reported with its id, holds the cursor, and comes again once the app can read it",
        arguments: StoreKind.allCases, [false, true])
    func unreadableRowComesAgain(kind: StoreKind, paged: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: five messages stamped 1…5; the third is of a kind this app does not know
            let objects: [JSONObject] = (1...5).map { number in
                let kind: JSON = number == 3 ? "poll" : "plain"
                return ["id": .string(String(number)), "text": .string("server \(number)"), "kind": kind]
            }
            server.resource("messages", objects: objects)
            server.trackChanges(for: "messages")
            let storage: Storage =
                switch kind {
                case .sqlite: try SQLiteStorage(path: directory.path("unreadable.sqlite"))
                case .memory: InMemoryStorage()
                }
            let session = NetworkingSession(url: server.url)
            let older = KindedMessages<KindedMessage>(store: session, storage: storage, paged: paged)

            // When
            let first = try await older.synchronize().value

            // Then: the others are merged, the unreadable one is reported by id, not stored
            #expect(first.pullCompleted && first.pulled == 4)
            #expect(first.unreadable.map(\.id) == ["3"])
            #expect(first.unreadable.first?.collection == "messages")
            #expect(first.unreadable.first?.raw["kind"] == "poll")
            #expect(first.unreadable.first?.error.code == .decoding)
            #expect(try await storage.fetch(collection: "messages", id: "3") == nil)
            let stored = try await storage.fetch(collection: "messages", matching: Criteria())
            #expect(stored.map(\.id).sorted() == ["1", "2", "4", "5"])

            // When: the next version of the app, over the same store, pulls without a reset
            let newer = KindedMessages<NewerKindedMessage>(store: session, storage: storage, paged: paged)
            let second = try await newer.synchronize().value

            // Then: it asked from at most the unreadable row's stamp, and merged the row
            #expect(second.incremental && second.pullCompleted && second.unreadable.isEmpty)
            let asked = server.requests.filter { $0.method == "GET" }.compactMap { $0.query["updated_after"] }
            #expect(asked.first.flatMap { Int($0) }.map { $0 <= 3 } == true)
            let three = try await storage.fetch(collection: "messages", id: "3")
            #expect(three?.object["kind"] == "poll")
        }
    }
}
