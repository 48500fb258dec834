import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A second collection on the same storage, for forwarders over several repositories.
struct OutboxNotes: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy = recordOnly
}

@Suite struct ForwarderMultiRepositoryTests {
    @Test(
        "one forwarder over two repositories keeps the global order across collections", arguments: StoreKind.allCases)
    func globalOrder(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            fixture.server.resource("notes")
            let messages = fixture.repository(strategy: recordOnly)
            let notes = OutboxNotes(store: fixture.session, storage: fixture.storage)
            // Given: writes to both collections, interleaved
            for index in 1...4 {
                _ = try await messages.create(Message(id: "m\(index)", text: "message \(index)")).value
                _ = try await notes.create(Message(id: "n\(index)", text: "note \(index)")).value
            }
            _ = try await notes.update(Message(id: "n1", text: "note 1, edited")).value
            _ = try await messages.delete(id: "m2").value
            let recorded = try await fixture.outbox()
            #expect(recorded.count == 7)  // the update folds into n1's create; m2's create and delete cancel out
            let forwarder = Forwarder(
                storage: fixture.storage, repositories: [messages, notes],
                configuration: ForwarderConfiguration(jitter: 0, clock: fixture.clock))
            #expect(forwarder.collections == ["messages", "notes"])
            // When
            let report = try await forwarder.flush().value
            // Then: every entry went, in the order it was recorded, each to its own collection
            #expect(report.delivered == 7 && report.rejected.isEmpty)
            #expect(await forwarder.pendingCount == 0)
            let applied = fixture.server.appliedWrites
            #expect(applied.map(\.idempotencyKey) == recorded.map(\.idempotencyKey))
            #expect(applied.map(\.resource) == recorded.map(\.collection))
            #expect(fixture.server.objects(in: "notes").first { $0["id"] == "n1" }?["text"] == "note 1, edited")
            #expect(fixture.server.objects(in: "messages").count == 3)
            #expect(try await fixture.storage.fetch(collection: "notes", id: "n3")?.syncState == .synced)
        }
    }

    @Test("a forwarder for one repository leaves the other collection's entries alone")
    func separateCollections() async throws {
        try await withOutboxFixture { fixture in
            fixture.server.resource("notes")
            let messages = fixture.repository(strategy: recordOnly)
            let notes = OutboxNotes(store: fixture.session, storage: fixture.storage)
            _ = try await messages.create(Message(id: "m1", text: "message")).value
            _ = try await notes.create(Message(id: "n1", text: "note")).value
            let report = try await fixture.forwarder(messages).flush().value
            #expect(report.delivered == 1)
            #expect(fixture.server.objects(in: "notes").isEmpty)
            #expect(try await fixture.outbox().map(\.collection) == ["notes"])
        }
    }
}
