import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Unreadable rows are kept, not dropped or fatal: a pulled row the app cannot decode waits in the
/// quarantine, out of reads, and is merged by the first pull after the app can read it.
@Suite struct QuarantineTests {
    /// Version 1 of the app's model: two kinds.
    struct NoteV1: Codable, Identifiable, Sendable {
        enum Kind: String, Codable, Sendable { case plain, todo }
        var id: String
        var text: String
        var kind: Kind
    }

    /// Version 2: a kind version 1 never knew.
    struct NoteV2: Codable, Identifiable, Sendable {
        enum Kind: String, Codable, Sendable { case plain, todo, checklist }
        var id: String
        var text: String
        var kind: Kind
    }

    struct NotesV1: CRUDNetworkingStorageRepository, SynchronizableRepository {
        typealias Entity = NoteV1
        let store: Networking
        let storage: Storage
        let path = "notes"
        var synchronization: SynchronizationConfiguration
    }

    struct NotesV2: CRUDNetworkingStorageRepository, SynchronizableRepository {
        typealias Entity = NoteV2
        let store: Networking
        let storage: Storage
        let path = "notes"
        var synchronization: SynchronizationConfiguration
    }

    static let rows: [JSONObject] = [
        ["id": "1", "text": "milk", "kind": "plain"],
        ["id": "2", "text": "pack", "kind": "checklist"],
        ["id": "3", "text": "call", "kind": "todo"],
    ]

    @Test(
        "a row with an unknown enum case is quarantined, the rest merged; after the model update the next pull merges it",
        arguments: StoreKind.allCases, [false, true])
    func unknownCaseKeptThenMerged(kind: StoreKind, paged: Bool) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a server with one row version 1 cannot read
            fixture.server.resource("notes", objects: Self.rows)
            let configuration = SynchronizationConfiguration(
                pagination: paged ? .pageQuery(page: "_page", limit: "_limit", size: 2) : .none)
            let v1 = NotesV1(store: fixture.session, storage: fixture.storage, synchronization: configuration)

            // When: version 1 synchronizes
            let first = try await v1.synchronize().value

            // Then: the two readable rows are merged, the third is reported and kept, out of reads
            #expect(first.pulled == 2)
            #expect(first.unreadable.map(\.id) == ["2"])
            let localV1 = LocalNotes<NoteV1>(storage: fixture.storage)
            #expect(try await localV1.readAll(Criteria()).value.map(\.id).sorted() == ["1", "3"])
            let kept = try await v1.quarantined().value
            #expect(kept.map(\.id) == ["2"] && kept.first?.raw["kind"] == "checklist")
            let firstSeen = try #require(kept.first?.firstSeen)

            // When: version 1 pulls again
            let second = try await v1.synchronize().value

            // Then: still kept, first seen as before, not reported twice in one pull
            #expect(second.unreadable.count <= 1 && second.recovered == 0)
            #expect(try await v1.quarantined().value.first?.firstSeen == firstSeen)

            // When: the app updates to version 2, and the server no longer lists the row (a pull
            // past it, as an incremental one would be): only the quarantine has it
            fixture.server.route(.get, "/notes", response: .json(.array([.object(Self.rows[0])])))
            let v2 = NotesV2(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let third = try await v2.synchronize().value

            // Then: the kept row is merged without asking the server for it, and leaves the quarantine
            #expect(third.recovered == 1 && third.unreadable.isEmpty && third.errors.isEmpty)
            let note = try await LocalNotes<NoteV2>(storage: fixture.storage).read("2").value
            #expect(note.kind == .checklist && note.text == "pack")
            #expect(try await fixture.stored("2") == nil, "notes, not messages")
            #expect(try await v2.quarantined().value.isEmpty)
        }
    }

    @Test("a stored record the model cannot read fails a local read with .decoding naming its id")
    func unreadableStoredRecord() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            // Given: version 2 stored a checklist note locally
            _ = try await fixture.storage.upsert(
                StoredRecord(
                    collection: "notes", id: "9", object: ["id": "9", "text": "x", "kind": "checklist"],
                    syncState: .synced)
            )
            #expect(try await LocalNotes<NoteV2>(storage: fixture.storage).read("9").value.kind == .checklist)

            // When/Then: version 1 reads it: a typed error naming the record, no crash
            let local = LocalNotes<NoteV1>(storage: fixture.storage)
            await #expect {
                try await local.read("9").value
            } throws: { error in
                let error = error as? DepotError
                return error?.code == .decoding && error?.message.contains("notes record 9") == true
            }
        }
    }

    struct LocalNotes<Entity: Codable & Identifiable & Sendable>: StorageRepository where Entity.ID == String {
        let storage: Storage
        let collection = "notes"
    }
}
