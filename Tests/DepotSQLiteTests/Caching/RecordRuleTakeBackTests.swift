import Depot
import DepotTesting
import Foundation
import Testing

/// "One record, one rule": a remote-first write the server refuses is taken back through the one
/// record-write function as a restore is, a write of the collection no answer follows.
@Suite struct RecordRuleTakeBackTests {
    @Test(
        "a remote-first update refused as gone does not bring back the cached list that still names its entity",
        arguments: StorageKind.allCases)
    func refusedRemoteFirstWriteInvalidatesLists(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the list read cache-first, fresh for 300 s; then another client deletes note 1.
            fixture.server.cacheControl = "max-age=300"
            let messages = fixture.messages(.cacheFirst)
            #expect(try await messages.readAll().value.value.count == 3)
            _ = try await fixture.session.request(.delete, "messages/1", as: Okay.self).value

            // When: the app's remote-first edit of note 1 is refused (404: gone) and taken back.
            do {
                _ = try await messages.update(Message(id: "1", text: "uno")).value
                Issue.record("the update of a deleted note was not refused")
            } catch let error as DepotError {
                #expect(error.code == .notFound)
            }
            let list = try await messages.readAll().value

            // Then: the record is back as it was, and the list asked the server again, which no
            // longer lists note 1.
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.syncState == .synced)
            #expect(list.origin == .remote && list.value.map(\.id) == ["2", "3"])
            #expect(fixture.gets("/messages").count == 2)
        }
    }
}
