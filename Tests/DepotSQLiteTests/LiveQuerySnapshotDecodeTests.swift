import Depot
import DepotTesting
import Foundation
import Testing

/// Version 1 of a note: no likes.
private struct LiveNoteV1: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Version 2 of a note: a required field the server always sends.
private struct LiveNoteV2: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var likes: Int
}

private struct LiveNotes<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository
where Entity.ID == String {
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
}

/// Live queries read a record as every local read does: a stored copy the model cannot read is
/// read again from the record's server snapshot with its pending change on top.
@Suite struct LiveQuerySnapshotDecodeTests {
    @Test(
        "a v2 live query delivers a record v1 stored, its new field from the server's snapshot under v1's pending edit",
        arguments: StorageKind.allCases)
    func liveQueryReadsV1RecordFromSnapshot(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: v1 created note 9 remote-first (the server answered it with its likes), then,
            // offline, edited it.
            fixture.server.route(
                .post, "/messages", response: .json(["id": "9", "text": "nine", "likes": 4], status: 201))
            _ = try await LiveNotes<LiveNoteV1>(store: fixture.session, storage: fixture.storage)
                .create(LiveNoteV1(id: "9", text: "nine")).value
            try await fixture.server.goOffline()
            _ = try await LiveNotes<LiveNoteV1>(store: fixture.session, storage: fixture.storage, strategy: .localFirst)
                .update(LiveNoteV1(id: "9", text: "edited")).value

            // When: v2 (likes required) observes the collection and the note.
            let v2 = LiveNotes<LiveNoteV2>(store: fixture.session, storage: fixture.storage)
            var list = v2.observe().makeAsyncIterator()
            var note = v2.observe(id: "9").makeAsyncIterator()
            let listed = await list.next()
            let observed = await note.next()

            // Then: both deliver the note: v1's edit over the likes of the server's snapshot.
            #expect(listed?.map(\.id) == ["9"] && listed?.first?.text == "edited" && listed?.first?.likes == 4)
            let value = try #require(observed ?? nil)
            #expect(value.text == "edited" && value.likes == 4)
        }
    }
}
