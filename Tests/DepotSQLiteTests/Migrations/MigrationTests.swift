import Depot
import DepotSQLite
import Foundation
import Testing

/// `Storage.migrate(_:)`: pending migrations over records, snapshots and (opted in) queued writes,
/// on every store.
@Suite struct MigrationTests {
    @Test("v1 → v2 → v3 migrates records, snapshots and opted-in queued writes", arguments: StorageKind.allCases)
    func chain(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given: notes as v1 wrote them
        let storage = try await notesAsV1Wrote(kind, in: directory)

        // When: v2 migrates, queued writes included
        let v2 = CollectionSchema("notes", entity: NoteV2.self, migrations: [NoteMigrations.toV2(.migrate)])
        let second = try await storage.migrate(v2)

        // Then
        #expect(
            second
                == MigrationReport(
                    collection: "notes", fromVersion: 0, toVersion: 2, recordsMigrated: 3, queuedWritesMigrated: 2))
        #expect(try await storage.schemaVersion(of: "notes") == 2)
        let one = try #require(try await storage.fetch(collection: "notes", id: "1"))
        #expect(one.object == ["id": "1", "text": "one", "kind": "plain"])
        #expect(one.snapshot == one.object, "a snapshot that was the object stays the object")
        let two = try #require(try await storage.fetch(collection: "notes", id: "2"))
        #expect(two.object == ["id": "2", "text": "local text", "kind": "plain"])
        #expect(two.snapshot == ["id": "2", "text": "server text", "kind": "plain"], "so a PATCH sends only the text")
        #expect(two.syncState == .updated)
        var payloads = try await notePayloads(storage)
        #expect(payloads[.create] == ["id": "3", "text": "three", "kind": "plain"])
        #expect(payloads[.update] == ["id": "2", "text": "local text", "kind": "plain"])
        #expect(payloads[.patch] == ["text": "patched"], "a patch is a fragment: left as written")

        // When: v3 renames text to body; its queued writes go as written
        let v3 = CollectionSchema(
            "notes", entity: NoteV3.self, migrations: [NoteMigrations.toV2(.migrate), NoteMigrations.toV3])
        let third = try await storage.migrate(v3)

        // Then
        #expect(third == MigrationReport(collection: "notes", fromVersion: 2, toVersion: 3, recordsMigrated: 3))
        let notes = NotesV3(storage: storage)
        #expect(
            try await notes.readAll().value.sorted { $0.id < $1.id } == [
                NoteV3(id: "1", body: "one", kind: .plain), NoteV3(id: "2", body: "local text", kind: .plain),
                NoteV3(id: "3", body: "three", kind: .plain),
            ])
        let migratedTwo = try #require(try await storage.fetch(collection: "notes", id: "2"))
        #expect(migratedTwo.snapshot == ["id": "2", "body": "server text", "kind": "plain"])
        payloads = try await notePayloads(storage)
        #expect(payloads[.create] == ["id": "3", "text": "three", "kind": "plain"], "v3 did not opt in")
    }

    @Test("by default a queued write goes as v1 wrote it", arguments: StorageKind.allCases)
    func queuedWritesAsWritten(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given
        let storage = try await notesAsV1Wrote(kind, in: directory)
        let before = try await storage.outbox(OutboxQuery(selection: .all))

        // When
        let report = try await storage.migrate(
            CollectionSchema("notes", entity: NoteV2.self, migrations: [NoteMigrations.toV2()]))

        // Then
        #expect(report.queuedWritesMigrated == 0)
        #expect(report.recordsMigrated == 3)
        #expect(try await storage.outbox(OutboxQuery(selection: .all)) == before)
        let three = try #require(try await storage.fetch(collection: "notes", id: "3"))
        #expect(three.object == ["id": "3", "text": "three", "kind": "plain"], "the record is migrated all the same")
    }

    @Test(
        "a v2 edit is never folded into a create v1 queued and the migration left as written (issue 32 #13)",
        arguments: StorageKind.allCases)
    func asWrittenEntryNeverFolded(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given: v1's create of "3" queued, and v3 (text renamed body) leaving it as written
        let storage = try await notesAsV1Wrote(kind, in: directory)
        let v3 = CollectionSchema(
            "notes", entity: NoteV3.self, migrations: [NoteMigrations.toV2(), NoteMigrations.toV3])
        _ = try await storage.migrate(v3)

        // When: v3 edits the note before the create went
        try await storage.transaction { tx in
            try tx.recordOutbox(collection: "notes", entityID: "3", operation: .patch, payload: ["body": "b"])
            try tx.recordOutbox(
                collection: "notes", entityID: "3", operation: .update,
                payload: ["id": "3", "body": "c", "kind": "plain"])
        }

        // Then: the create goes as v1 wrote it, and v3's edits after it in v3's shape
        let entries = try await storage.outbox(OutboxQuery(collections: ["notes"], selection: .all))
            .filter { $0.entityID == "3" }
        #expect(entries.map(\.operation) == [.create, .update])
        #expect(entries.first?.payload == ["id": "3", "text": "three"])
        #expect(entries.last?.payload == ["id": "3", "body": "c", "kind": "plain"], "v3's writes still fold together")
    }

    @Test("the version is stored in the file and a migration is not run again after reopening")
    func notRunAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("notes.sqlite")
        // Given: v1's file
        let v1 = try SQLiteStorage(path: path)
        try await writeV1Notes(to: v1)
        try v1.close()
        let runs = LockedValue(0)
        let schema = CollectionSchema(
            "notes", entity: NoteV2.self,
            migrations: [
                Migration(to: 2) { record in
                    runs.withLock { $0 += 1 }
                    record["kind"] = record["kind"] ?? "plain"
                }
            ])

        // When: v2 opens it twice
        let first = try await SQLiteStorage.open(path: path, migrating: [schema])
        try first.close()
        let runsAtFirstOpening = runs.withLock { $0 }
        let second = try await SQLiteStorage.open(path: path, migrating: [schema])
        defer { try? second.close() }

        // Then: 3 records and 1 snapshot that is not its object; nothing the second time
        #expect(runsAtFirstOpening == 4)
        #expect(runs.withLock { $0 } == 4)
        #expect(try await second.schemaVersion(of: "notes") == 2)
        #expect(try await second.migrate(schema) == MigrationReport(collection: "notes", fromVersion: 2, toVersion: 2))
        let notes = try await NotesV2(storage: second).readAll().value
        #expect(notes.map(\.kind) == [.plain, .plain, .plain])
    }

    @Test(
        "a synced record is read again from its server snapshot; an unreadable one is kept and reported",
        arguments: StorageKind.allCases)
    func redecodeFromSnapshot(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: the server always sent `pinned`, which v1 ignored; "9" was stored without text
        let server: JSONObject = ["id": "1", "text": "one", "pinned": true]
        try await storage.upsert([
            StoredRecord(
                collection: "notes", id: "1", object: ["id": "1", "text": "one"], syncState: .synced,
                snapshot: server),
            StoredRecord(
                collection: "notes", id: "2", object: ["id": "2", "text": "local"], syncState: .updated,
                snapshot: ["id": "2", "text": "server", "pinned": true]),
            StoredRecord(collection: "notes", id: "9", object: ["id": "9"], syncState: .created),
        ])

        // When
        let report = try await storage.migrate(
            CollectionSchema("notes", entity: PinnedNote.self, migrations: [NoteMigrations.toV2()]))

        // Then
        #expect(report.unreadable == ["9"])
        let one = try #require(try await storage.fetch(collection: "notes", id: "1"))
        #expect(one.object == ["id": "1", "text": "one", "kind": "plain", "pinned": true], "no request needed")
        #expect(one.snapshot == ["id": "1", "text": "one", "kind": "plain", "pinned": true])
        let two = try #require(try await storage.fetch(collection: "notes", id: "2"))
        #expect(two.object == ["id": "2", "text": "local", "kind": "plain"], "a local change keeps its object")
        let nine = try #require(try await storage.fetch(collection: "notes", id: "9"))
        #expect(nine.object == ["id": "9", "kind": "plain"], "kept as the migration left it")
        #expect(try await storage.schemaVersion(of: "notes") == 2)
    }

    @Test(
        "versions must increase above 0",
        arguments: [[2, 2], [3, 2], [0], [-1, 2]])
    func misorderedVersions(versions: [Int]) async throws {
        let storage = InMemoryStorage()
        try await storage.upsert(record("1", ["text": "one"], collection: "notes"))
        let schema = CollectionSchema(
            "notes", entity: NoteV2.self,
            migrations: versions.map { version in Migration(to: version) { record in record["kind"] = "plain" } })
        let error = await #expect(throws: DepotError.self) { try await storage.migrate(schema) }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("notes") == true)
        #expect(try await storage.fetch(collection: "notes", id: "1")?.object == ["id": "1", "text": "one"])
    }

    @Test("a store whose transactions cannot list is listed just before its transaction")
    func storeWithoutListing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given
        let storage = PlainTransactionStorage(try await notesAsV1Wrote(.sqliteFile, in: directory))

        // When
        let report = try await storage.migrate([
            CollectionSchema("notes", entity: NoteV2.self, migrations: [NoteMigrations.toV2(.migrate)])
        ])

        // Then
        #expect(
            report == [
                MigrationReport(
                    collection: "notes", fromVersion: 0, toVersion: 2, recordsMigrated: 3, queuedWritesMigrated: 2)
            ])
        #expect(try await NotesV2(storage: storage).readAll().value.map(\.kind) == [.plain, .plain, .plain])
        #expect(try await notePayloads(storage)[.patch] == ["text": "patched"])
    }

    @Test("resetPullCursors forgets the collection's cursors only")
    func resetPullCursors() async throws {
        let storage = InMemoryStorage()
        let cursors = "__depot_pull_cursors"
        try await storage.upsert([
            StoredRecord(collection: cursors, id: "notes?", object: ["cursor": "a"], syncState: .synced),
            StoredRecord(collection: cursors, id: "notes?tag=x", object: ["cursor": "b"], syncState: .synced),
            StoredRecord(collection: cursors, id: "notebooks?", object: ["cursor": "c"], syncState: .synced),
        ])
        try await storage.resetPullCursors(collection: "notes")
        #expect(try await storage.fetch(collection: cursors, matching: .all).map(\.id) == ["notebooks?"])
    }
}

/// A v2 note with the field the server always sent.
struct PinnedNote: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
    var kind: NoteV2.Kind
    var pinned: Bool?
}

/// v2's notes, local only.
struct NotesV2: StorageRepository {
    typealias Entity = NoteV2
    static let migrations = [NoteMigrations.toV2()]
    let storage: Storage
    let collection = "notes"
}

/// v3's notes, local only.
struct NotesV3: StorageRepository {
    typealias Entity = NoteV3
    static let migrations = [NoteMigrations.toV2(), NoteMigrations.toV3]
    let storage: Storage
    let collection = "notes"
}
