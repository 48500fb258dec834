import Depot
import DepotSQLite
import Foundation
import Testing

/// A migration that throws leaves the store as it was.
@Suite struct MigrationRollbackTests {
    @Test("a migration that throws halfway leaves the SQLite file byte for byte as it was")
    func fileUntouched() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("notes.sqlite")
        // Given: v1's file, closed (its write-ahead log checkpointed into the main file)
        let v1 = try SQLiteStorage(path: path)
        try await writeV1Notes(to: v1)
        try v1.close()
        // Opening the store commits bookkeeping of its own each time (SQLite's change counter
        // and schema cookie move): the reference is a copy of v1's file opened and closed
        // without migrations, which the failed migration's file must equal byte for byte.
        let control = directory.path("control.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: control)
        try SQLiteStorage(path: control).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: control))
        let refusing = CollectionSchema(
            "notes", entity: NoteV2.self,
            migrations: [
                NoteMigrations.toV2(.migrate),
                Migration(to: 3) { record in
                    // Records run in id order: "1" and "2" are migrated before "3" refuses.
                    if record["id"] == "3" { throw RefusedNote() }
                },
            ])

        // When
        let error = await #expect(throws: DepotError.self) {
            _ = try await SQLiteStorage.open(path: path, migrating: [refusing])
        }

        // Then: the error names the collection, the version and the record
        #expect(error?.code == .migration)
        let message = error?.message ?? ""
        #expect(message.contains("notes"), "\(message)")
        #expect(message.contains("version 3"), "\(message)")
        #expect(message.contains("record 3"), "\(message)")
        #expect(error?.underlying is RefusedNote)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after == before, "the main file is byte for byte as an opening without migrations leaves it")
        // And v1 still reads it
        let storage = try SQLiteStorage(path: path)
        defer { try? storage.close() }
        #expect(try await storage.schemaVersion(of: "notes") == 0)
        let notes = try await NotesV1(storage: storage).readAll().value
        #expect(notes.map(\.text).sorted() == ["local text", "one", "three"])
        let create = try await storage.outbox(OutboxQuery(collections: ["notes"])).first
        #expect(create?.payload == ["id": "3", "text": "three"])
    }

    @Test("a migration that throws on one collection leaves that collection as it was", arguments: StorageKind.allCases)
    func rolledBack(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given
        let storage = try await notesAsV1Wrote(kind, in: directory)
        let records = try await storage.fetch(collection: "notes", matching: Criteria(includeDeleted: true))
        let outbox = try await storage.outbox(OutboxQuery(selection: .all))
        let refusing = CollectionSchema(
            "notes", entity: NoteV2.self,
            migrations: [
                Migration(to: 2, queuedWrites: .migrate) { record in
                    if record["text"] == "three" { throw RefusedNote() }
                    record["kind"] = "plain"
                }
            ])

        // When
        let error = await #expect(throws: DepotError.self) { try await storage.migrate(refusing) }

        // Then
        #expect(error?.code == .migration)
        #expect(
            try await storage.fetch(collection: "notes", matching: Criteria(includeDeleted: true)) == records)
        #expect(try await storage.outbox(OutboxQuery(selection: .all)) == outbox)
        #expect(try await storage.schemaVersion(of: "notes") == 0)
    }
}

/// v1's notes, local only.
struct NotesV1: StorageRepository {
    typealias Entity = NoteV1
    let storage: Storage
    let collection = "notes"
}
