import Depot
import DepotSQLite
import Foundation

/// A note as app v1 models it.
struct NoteV1: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
}

/// A note as app v2 models it: a required `kind`, with a case v1 never knew.
struct NoteV2: Codable, Identifiable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        case plain
        case checklist
    }

    var id: String
    var text: String
    var kind: Kind
}

/// A note as app v3 models it: `text` renamed `body`.
struct NoteV3: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var body: String
    var kind: NoteV2.Kind
}

/// Migrations of the notes collection, shared by the tests.
enum NoteMigrations {
    /// v2: every note gets a kind, `"plain"` unless it has one.
    static func toV2(_ queuedWrites: Migration.QueuedWrites = .asWritten) -> Migration {
        Migration(to: 2, queuedWrites: queuedWrites) { record in record["kind"] = record["kind"] ?? "plain" }
    }

    /// v3: `text` becomes `body`.
    static let toV3 = Migration(to: 3) { record in
        record["body"] = record.removeValue(forKey: "text")
    }
}

/// A storage of `kind` holding notes as v1 wrote them: "1" synced (its snapshot is its object),
/// "2" changed locally since the server's "server text", "3" created locally, with the outbox
/// entries such writes leave: a create of "3", an update and a patch of "2".
func notesAsV1Wrote(_ kind: StorageKind, in directory: TemporaryDirectory) async throws -> any Storage {
    let storage = try await kind.make(in: directory)
    try await writeV1Notes(to: storage)
    return storage
}

/// Writes the v1 notes of ``notesAsV1Wrote(_:in:)`` to `storage`.
func writeV1Notes(to storage: any Storage) async throws {
    try await storage.transaction { tx in
        try tx.upsert(record("1", ["text": "one"], collection: "notes"))
        try tx.upsert(
            StoredRecord(
                collection: "notes", id: "2", object: ["id": "2", "text": "local text"], syncState: .updated,
                snapshot: ["id": "2", "text": "server text"]))
        try tx.upsert(record("3", ["text": "three"], state: .created, collection: "notes"))
        try tx.recordOutbox(
            collection: "notes", entityID: "3", operation: .create, payload: ["id": "3", "text": "three"])
        try tx.recordOutbox(
            collection: "notes", entityID: "2", operation: .update, payload: ["id": "2", "text": "local text"])
        // A patch after an update would fold into it: the patch is an entry of its own, sent once.
        try tx.recordOutbox(
            collection: "notes", entityID: "2", operation: .patch, payload: ["text": "patched"],
            idempotencyKey: "patch-2")
    }
}

/// The outbox payloads of the notes collection, by operation.
func notePayloads(_ storage: any Storage) async throws -> [OutboxOperation: JSON] {
    let entries = try await storage.outbox(OutboxQuery(collections: ["notes"], selection: .all))
    var payloads: [OutboxOperation: JSON] = [:]
    for entry in entries { payloads[entry.operation] = entry.payload }
    return payloads
}

/// A migration's failure in a test.
struct RefusedNote: Error, CustomStringConvertible {
    var description: String { "note refused" }
}
