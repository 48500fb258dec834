import Depot
import DepotTesting
import Foundation
import Testing

/// Version 1 of a note: no likes.
private struct LocalNoteV1: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Version 2 of a note: a required field the server always sends.
private struct LocalNoteV2: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var likes: Int
}

private struct LocalNotes<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository
where Entity.ID == String {
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
}

/// A stored copy the model cannot read is read again from the stored server snapshot (with the
/// record's pending change on top) on every local road, never `.decoding` while that reads.
@Suite struct UnreadableLocalCopyTests {
    @Test(
        "an offline v2 read of a record v1 created answers from the store with the field from the server's snapshot",
        arguments: StorageKind.allCases)
    func offlineReadOfV1CopyUsesSnapshot(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: v1 created note 9 remote-first; the server answered it with its likes.
            fixture.server.route(
                .post, "/messages", response: .json(["id": "9", "text": "nine", "likes": 4], status: 201))
            let v1 = LocalNotes<LocalNoteV1>(store: fixture.session, storage: fixture.storage)
            _ = try await v1.create(LocalNoteV1(id: "9", text: "nine")).value

            // When: the server goes offline and v2 (likes required) reads the note, remote-first and local.
            try await fixture.server.goOffline()
            var v2 = LocalNotes<LocalNoteV2>(store: fixture.session, storage: fixture.storage)
            let read = try await v2.read("9").value
            let list = try await v2.readAll().value
            v2.strategy = .localFirst
            let local = try await v2.read("9").value

            // Then: the store answers the note with the likes of the server's snapshot.
            #expect(read.origin == .local && read.value.likes == 4 && read.value.text == "nine")
            #expect(list.origin == .local && list.value.map(\.likes) == [4] && list.unreadable.isEmpty)
            #expect(local.origin == .local && local.value.likes == 4)
        }
    }

    @Test(
        "an offline v2 read shows v1's pending edit over the server's snapshot; a row with no snapshot is reported, the rest kept",
        arguments: StorageKind.allCases)
    func pendingEditOverSnapshotAndUnreadableRow(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: v1 created note 9 remote-first (the server answered with its likes), then,
            // offline, edited it and created note 8, which the server never saw.
            fixture.server.route(
                .post, "/messages", response: .json(["id": "9", "text": "nine", "likes": 4], status: 201))
            let v1 = LocalNotes<LocalNoteV1>(store: fixture.session, storage: fixture.storage, strategy: .localFirst)
            _ = try await LocalNotes<LocalNoteV1>(store: fixture.session, storage: fixture.storage)
                .create(LocalNoteV1(id: "9", text: "nine")).value
            try await fixture.server.goOffline()
            _ = try await v1.update(LocalNoteV1(id: "9", text: "edited")).value
            _ = try await v1.create(LocalNoteV1(id: "8", text: "eight")).value

            // When: v2 reads the note and the list.
            let v2 = LocalNotes<LocalNoteV2>(store: fixture.session, storage: fixture.storage, strategy: .localFirst)
            let read = try await v2.read("9").value
            let list = try await v2.readAll().value

            // Then: note 9 is v1's edit over the server's likes; note 8 is reported, not an error.
            #expect(read.value.text == "edited" && read.value.likes == 4)
            #expect(list.value.map(\.id) == ["9"] && list.value.first?.text == "edited")
            #expect(list.unreadable.map(\.id) == ["8"] && list.unreadable.first?.error.code == .decoding)
        }
    }
}
