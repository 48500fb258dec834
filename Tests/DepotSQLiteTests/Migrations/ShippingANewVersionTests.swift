import Depot
import DepotSQLite
import Foundation
import Testing

/// The article "Shipping a new version of your model", run: its code verbatim, between v1's
/// writes and the checks.
@Suite struct ShippingANewVersionTests {
    /// v1's notes repository, as the article's v1 app would declare it.
    struct LocalNotesV1: StorageRepository {
        typealias Entity = NoteV1
        let storage: Storage
        let collection = "notes"
    }

    @Test("the worked example: v2 opens the file v1 wrote and reads every note")
    func workedExample() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("notes.sqlite")
        // Given: app v1 wrote a note and closed; v2 without a migration cannot read it
        try await Self.writeAsV1(path: path)

        // When: the article's code, verbatim
        // App v1 stored notes like these.
        struct NoteV1: Codable, Identifiable, Sendable {
            var id: String
            var text: String
        }

        // App v2 adds a required kind, with a case v1 never knew.
        struct NoteV2: Codable, Identifiable, Sendable {
            enum Kind: String, Codable, Sendable {
                case plain
                case checklist
            }

            var id: String
            var text: String
            var kind: Kind
        }

        let notes = CollectionSchema(
            "notes", entity: NoteV2.self,
            migrations: [
                Migration(to: 2) { record in
                    record["kind"] = record["kind"] ?? "plain"
                }
            ])
        let storage = try await SQLiteStorage.open(path: path, migrating: [notes])

        // Then
        defer { try? storage.close() }
        let read = try await StorageOnlyNotes<NoteV2>(storage: storage).readAll().value
        #expect(read.map(\.id) == ["1"])
        #expect(read.map(\.text) == ["Buy milk"])
        #expect(read.map(\.kind) == [.plain])
        // A note of the case v1 never knew is stored and read back.
        _ = try await StorageOnlyNotes<NoteV2>(storage: storage).create(
            NoteV2(id: "2", text: "Pack", kind: .checklist)
        ).value
        #expect(try await StorageOnlyNotes<NoteV2>(storage: storage).read("2").value.kind == .checklist)
    }

    /// App v1 writes a note to the file at `path` and closes it; v2 reading it without a
    /// migration fails on the missing kind.
    static func writeAsV1(path: String) async throws {
        let v1 = try SQLiteStorage(path: path)
        _ = try await LocalNotesV1(storage: v1).create(NoteV1(id: "1", text: "Buy milk")).value
        try v1.close()
        let unmigrated = try SQLiteStorage(path: path)
        defer { try? unmigrated.close() }
        let failure = await #expect(throws: DepotError.self) {
            _ = try await StorageOnlyNotes<NoteV2>(storage: unmigrated).readAll().value
        }
        #expect(failure?.code == .decoding)
        #expect(failure?.message.contains("kind: missing key") == true, "\(failure?.message ?? "")")
    }

    @Test("the repository form: static migrations and migrate()")
    func repositoryForm() async throws {
        // Given
        let storage = InMemoryStorage()
        _ = try await LocalNotesV1(storage: storage).create(NoteV1(id: "1", text: "Buy milk")).value

        // When: the article's repository block, with its `Note` being v2's
        struct Notes: StorageRepository {
            typealias Entity = NoteV2
            static var migrations: [Migration] {
                [Migration(to: 2) { record in record["kind"] = record["kind"] ?? "plain" }]
            }
            let storage: Storage
            let collection = "notes"
        }

        let report = try await Notes(storage: storage).migrate().value

        // Then
        #expect(report == MigrationReport(collection: "notes", fromVersion: 0, toVersion: 2, recordsMigrated: 1))
        #expect(try await Notes(storage: storage).read("1").value == NoteV2(id: "1", text: "Buy milk", kind: .plain))
        #expect(try await Notes(storage: storage).migrate().value.recordsMigrated == 0, "run once")
    }
}

/// Notes of any model, local only.
struct StorageOnlyNotes<Note: Codable & Identifiable & Sendable>: StorageRepository where Note.ID == String {
    typealias Entity = Note
    let storage: Storage
    let collection = "notes"
}
