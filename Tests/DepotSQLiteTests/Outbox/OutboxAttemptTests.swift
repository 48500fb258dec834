import Depot
import DepotSQLite
import Foundation
import Testing

/// `StorageTransaction.markOutboxAttempted(sequences:)`: the SQLite store's single
/// `UPDATE … RETURNING` answers as the default's read-and-replace does.
@Suite struct OutboxAttemptTests {
    @Test(
        "marking counts one attempt on present, unrefused entries and returns them in the order asked",
        arguments: StorageKind.allCases)
    func markAttempted(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: three entries, the second refused, and a sequence that was never given.
        let sequences = try await storage.transaction { tx in
            try ["a", "b", "c"].map { id in
                try tx.appendOutbox(
                    OutboxEntry(
                        sequence: 0, collection: "messages", entityID: id, operation: .create,
                        payload: ["id": .string(id)]
                    ))
            }
        }
        try await storage.transaction { tx in
            var refused = try #require(try tx.outboxEntry(sequence: sequences[1]))
            refused.rejection = OutboxRejection(status: 422, body: Data(), message: "no")
            try tx.replaceOutbox(refused)
        }

        // When: asked out of order, with a repeat and a missing sequence.
        let asked = [sequences[2], 999, sequences[1], sequences[0], sequences[2]]
        let marked = try await storage.transaction { tx in try tx.markOutboxAttempted(sequences: asked) }

        // Then
        #expect(marked.map(\.entityID) == ["c", "a"])
        #expect(marked.map(\.attempts) == [1, 1])
        let stored = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(stored.map(\.attempts) == [1, 0, 1])
        #expect(stored.filter { $0.entityID != "b" } == marked.sorted { $0.sequence < $1.sequence })
        #expect(try await storage.transaction { tx in try tx.markOutboxAttempted(sequences: []) }.isEmpty)
    }
}
