import Depot
import DepotSQLite
import Foundation
import Testing

/// `appendOutboxIfFirst`, the first step of `recordOutbox`, on every store (see
/// ``StorageConformanceTests``).
extension StorageConformanceTests {
    @Test(
        "appendOutboxIfFirst adds an entity's first entry, then finds its last one and adds nothing",
        arguments: StorageKind.allCases)
    func appendOutboxIfFirst(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: an entry of another entity
        _ = try await Conformance.append([Conformance.entry("b")], to: storage)
        // When: "a" is appended if first, twice, then after its entry is refused
        let (first, second) = try await storage.transaction { tx in
            (
                try tx.appendOutboxIfFirst(Conformance.entry("a", .create)),
                try tx.appendOutboxIfFirst(Conformance.entry("a", .update))
            )
        }
        // Then: the first call added the entry; the second found it and added nothing
        guard case .appended(let sequence) = first else {
            Issue.record("the first entry of a was not added: \(first)")
            return
        }
        let stored = try await storage.outbox(OutboxQuery(entityID: "a", selection: .all))
        #expect(stored.map(\.sequence) == [sequence])
        #expect(stored.first?.operation == .create && stored.first?.payload == ["text": "x"])
        #expect(second == .behind(try #require(stored.first)))
        // And: a refused last entry is still found (recordOutbox then appends behind it)
        let third = try await storage.transaction { tx in
            var refused = try #require(try tx.outboxEntry(sequence: sequence))
            refused.rejection = Conformance.rejection
            try tx.replaceOutbox(refused)
            return try tx.appendOutboxIfFirst(Conformance.entry("a", .delete))
        }
        guard case .behind(let last) = third else {
            Issue.record("an entity with a refused entry got another first entry: \(third)")
            return
        }
        #expect(last.sequence == sequence && last.rejection == Conformance.rejection)
        #expect(try await storage.outboxCount(OutboxQuery(selection: .all)) == 2)
    }

    @Test(
        "recordOutbox folds into the pending entry, drops a create+delete, and appends behind a refused one",
        arguments: StorageKind.allCases)
    func recordOutboxThroughAppendIfFirst(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // When: a create, then an update of "a"; a create then a delete of "c"
        let (created, folded, dropped) = try await storage.transaction { tx in
            let created = try tx.recordOutbox(
                collection: "messages", entityID: "a", operation: .create, payload: ["text": "1"])
            let folded = try tx.recordOutbox(
                collection: "messages", entityID: "a", operation: .update, payload: ["text": "2"])
            _ = try tx.recordOutbox(collection: "messages", entityID: "c", operation: .create, payload: ["text": "c"])
            let dropped = try tx.recordOutbox(collection: "messages", entityID: "c", operation: .delete, payload: nil)
            return (created, folded, dropped)
        }
        // Then: one create of "a" carrying the update, nothing for "c"
        let entries = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(entries.count == 1)
        #expect(entries.first?.sequence == created?.sequence && folded?.sequence == created?.sequence)
        #expect(entries.first?.operation == .create && entries.first?.payload == ["text": "2"])
        #expect(dropped == nil)
    }
}
