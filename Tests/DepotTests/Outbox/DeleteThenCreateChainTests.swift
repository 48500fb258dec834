import Foundation
import Testing

@testable import Depot

/// Regression test for a tombstone left for ever (`OutboxCrashTest` seed 3133779461387414867): an
/// entity deleted and created again locally queues a delete and a create (a chain each); once the
/// delete went through, the record is the new entity's, which the server has not seen, so a delete
/// of it made before its create goes out removes it and sends nothing.
@Suite struct DeleteThenCreateChainTests {
    /// A note as the crash test writes it.
    struct Note: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var text: String
    }

    /// Note x, synced, then deleted and created again by the app: a delete and a create queued.
    static func deletedAndCreatedAgain() async throws -> (InMemoryStorage, LocalStore<Note>) {
        let storage = InMemoryStorage()
        var notes = LocalStore<Note>(storage: storage, collection: "notes")
        notes.outboxPayload = { _, object in object }
        try await storage.transaction { tx in
            try tx.upsert(
                StoredRecord(
                    collection: "notes", id: "x", object: ["id": "x", "text": "old"], syncState: .synced,
                    snapshot: ["id": "x", "text": "old"], etag: "\"e1\""))
        }
        let store = notes
        try await storage.transaction { tx in try store.delete(ids: ["x"], in: tx) }
        _ = try await storage.transaction { tx in try store.create([Note(id: "x", text: "new")], in: tx) }
        return (storage, store)
    }

    @Test("a delete made after the answer to an earlier delete, before the re-create is sent, leaves nothing behind")
    func deleteAfterDeliveredDeleteBeforeCreate() async throws {
        // Given: note x, synced; the app deletes it and creates it again (a delete and a create
        // queued), and the delete is delivered
        let (storage, store) = try await Self.deletedAndCreatedAgain()
        let queued = try await storage.outbox(OutboxQuery(entityID: "x"))
        #expect(queued.map(\.operation) == [.delete, .create])
        try await storage.transaction { tx in
            try tx.removeOutbox(sequence: queued[0].sequence)
            try tx.storeServerAnswer(nil, collection: "notes", sentID: "x", in: storage)
        }

        // Then: the record is the new entity's, not yet on the server
        let recreated = try #require(try await storage.fetch(collection: "notes", id: "x"))
        #expect(recreated.syncState == .created && recreated.snapshot == nil && recreated.etag == nil)

        // When: the app deletes it before its create goes out
        try await storage.transaction { tx in try store.delete(ids: ["x"], in: tx) }

        // Then: nothing is left: no record (no tombstone no entry would ever remove), no entry
        #expect(try await storage.fetch(collection: "notes", id: "x") == nil)
        #expect(try await storage.outbox(OutboxQuery(entityID: "x")).isEmpty)
    }

    /// `OutboxCrashTest` seed 17395578631429455834: the delete's answer came while the re-create
    /// behind it was claimed (so not folded) and the app had deleted the entity again; the answer
    /// made the record `.created`, the re-create's answer then `.updated`, and the app's last
    /// delete was shown as the re-created note until its own answer came.
    @Test("a delete answered while the re-create behind it is claimed and deleted again leaves the record deleted")
    func deleteAnsweredAfterRecreateDeletedAgain() async throws {
        // Given: note x, synced; the app deletes it and creates it again, both claimed by a sender
        let (storage, store) = try await Self.deletedAndCreatedAgain()
        let claimed = try await storage.outbox(OutboxQuery(entityID: "x"))
        #expect(claimed.map(\.operation) == [.delete, .create])
        try await storage.transaction { tx in
            for var entry in claimed {
                entry.attempts = 1
                try tx.replaceOutbox(entry)
            }
        }

        // When: the app deletes the re-created note (its create may be out: a delete is queued),
        // then the first delete's answer comes
        try await storage.transaction { tx in try store.delete(ids: ["x"], in: tx) }
        #expect(try await storage.outbox(OutboxQuery(entityID: "x")).map(\.operation) == [.delete, .create, .delete])
        try await storage.transaction { tx in
            try tx.removeOutbox(sequence: claimed[0].sequence)
            try tx.storeServerAnswer(nil, collection: "notes", sentID: "x", deleted: .tombstone, in: storage)
        }

        // Then: the record stays as the app left it: deleted
        #expect(try await storage.fetch(collection: "notes", id: "x")?.syncState == .deleted)

        // When: the re-create's answer comes, then the last delete's
        let answer = try EncodedRecord.answer(
            collection: "notes", id: "x", object: ["id": "x", "text": "new"], json: nil, etag: "\"e2\"")
        try await storage.transaction { tx in
            try tx.removeOutbox(sequence: claimed[1].sequence)
            try tx.storeServerAnswer(answer, collection: "notes", sentID: "x", in: storage)
        }
        #expect(try await storage.fetch(collection: "notes", id: "x")?.syncState == .deleted)
        let last = try #require(try await storage.outbox(OutboxQuery(entityID: "x")).first)
        try await storage.transaction { tx in
            try tx.removeOutbox(sequence: last.sequence)
            try tx.storeServerAnswer(nil, collection: "notes", sentID: "x", deleted: .tombstone, in: storage)
        }

        // Then: nothing is left, and nothing is queued
        #expect(try await storage.fetch(collection: "notes", id: "x") == nil)
        #expect(try await storage.outbox(OutboxQuery(entityID: "x")).isEmpty)
    }
}
