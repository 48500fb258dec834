import Depot
import DepotSQLite
import Foundation
import Testing

/// The logout rule on every store: erase refuses while writes would be lost, erases when forced
/// or clean, and leaves a spent store behind.
@Suite struct StorageEraseTests {
    func makeStore(_ kind: StorageKind, _ directory: TemporaryDirectory) async throws -> any ErasableStorage {
        try #require(try await kind.make(in: directory) as? any ErasableStorage)
    }

    static func recordPendingWrite(_ storage: any Storage, id: String = "1") async throws {
        _ = try await storage.transaction { transaction in
            try transaction.recordOutbox(
                collection: "messages", entityID: id, operation: .create, payload: ["id": .string(id), "text": "hi"])
        }
    }

    static func expectRefusal(
        _ storage: any ErasableStorage, saying phrases: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: DepotError.self, sourceLocation: sourceLocation) { try await storage.erase() }
        #expect(error?.code == .unsyncedWrites, sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(error?.message.contains(phrase) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        }
    }

    @Test("erase refuses while an outbox entry is pending, and erases nothing", arguments: StorageKind.allCases)
    func refusesPendingEntry(kind: StorageKind) async throws {
        // Given
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await storage.upsert([record("1", ["text": "hi"])])
        try await Self.recordPendingWrite(storage)
        // When / Then
        await Self.expectRefusal(
            storage, saying: ["would lose what the server has not accepted: 1 pending write;", "erase(force: true)"])
        #expect(try await storage.outboxCount(OutboxQuery()) == 1)
        #expect(try await storage.fetch(collection: "messages", id: "1")?.object["text"] == "hi")
        #expect(try await storage.unsyncedSummary() == UnsyncedSummary(pendingEntries: 1))
    }

    @Test("erase refuses while a record is not synced, and erases nothing", arguments: StorageKind.allCases)
    func refusesUnsyncedRecord(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await storage.upsert([record("1", ["text": "a"]), record("2", ["text": "b"], state: .updated)])

        await Self.expectRefusal(storage, saying: [": 1 unsynced record;", "nothing was erased"])
        let kept = try await storage.fetch(collection: "messages", matching: .all)
        #expect(kept.map(\.id) == ["1", "2"])
    }

    @Test("erase refuses while a rejected entry is kept", arguments: StorageKind.allCases)
    func refusesRejectedEntry(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await Self.recordPendingWrite(storage, id: "1")
        try await Self.recordPendingWrite(storage, id: "2")
        _ = try await storage.transaction { transaction in
            var entry = try #require(try transaction.outboxEntries(collection: "messages", entityID: "2").first)
            entry.rejection = OutboxRejection(status: 422, message: "text too short")
            return try transaction.replaceOutbox(entry)
        }

        #expect(
            try await storage.unsyncedSummary() == UnsyncedSummary(pendingEntries: 1, rejectedEntries: 1))
        await Self.expectRefusal(storage, saying: [": 1 pending write, 1 rejected write;"])
        #expect(try await storage.outboxCount(OutboxQuery(selection: .all)) == 2)
    }

    @Test(
        "erase(force: true) erases unsynced work, and later calls reject with .storage", arguments: StorageKind.allCases
    )
    func forceErases(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await storage.upsert([record("1", ["text": "a"], state: .created)])
        try await Self.recordPendingWrite(storage)

        try await storage.erase(force: true)

        try await Self.expectErased { try await storage.fetch(collection: "messages", id: "1") }
        try await Self.expectErased { try await storage.outboxCount(OutboxQuery()) }
    }

    @Test("a clean store erases without force", arguments: StorageKind.allCases)
    func cleanStoreErases(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await storage.upsert([record("1", ["text": "a"]), record("2", ["text": "b"])])
        #expect(try await storage.unsyncedSummary().isEmpty)

        try await storage.erase()

        try await Self.expectErased { try await storage.unsyncedSummary() }
    }

    @Test("every call after erase rejects with .storage saying the store was erased", arguments: StorageKind.allCases)
    func callsAfterErase(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await makeStore(kind, directory)
        try await storage.erase()

        let row = record("1", ["text": "a"])
        try await Self.expectErased { try await storage.insert(row) }
        try await Self.expectErased { try await storage.upsert([row]) }
        try await Self.expectErased { try await storage.fetch(collection: "messages", id: "1") }
        try await Self.expectErased { try await storage.fetch(collection: "messages", matching: .all) }
        try await Self.expectErased {
            try await storage.fetch(collection: "messages", syncStates: [.created], after: nil, limit: 10)
        }
        try await Self.expectErased { try await storage.delete(collection: "messages", id: "1") }
        try await Self.expectErased { try await storage.deleteAll(collection: "messages") }
        try await Self.expectErased { try await Self.recordPendingWrite(storage) }
        try await Self.expectErased { try await storage.outbox(OutboxQuery()) }
        try await Self.expectErased { try await storage.outboxCount(OutboxQuery()) }
        try await Self.expectErased { try await storage.unsyncedSummary() }
        try await Self.expectErased { try await storage.erase(force: true) }
    }

    static func expectErased<T>(
        sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> T
    ) async throws {
        let error = await #expect(throws: DepotError.self, sourceLocation: sourceLocation) { _ = try await call() }
        #expect(error?.code == .storage, sourceLocation: sourceLocation)
        #expect(
            error?.message.contains("was erased") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }
}
