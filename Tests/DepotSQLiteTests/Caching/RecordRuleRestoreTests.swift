import Depot
import DepotTesting
import Foundation
import Testing

/// "One record, one rule": a pending change the app gives up puts the server's last version back
/// through the one record-write function, a write of the collection like any other.
@Suite struct RecordRuleRestoreTests {
    @Test(
        "a write refused as gone, then discarded, does not bring back the cached list that still names its entity",
        arguments: StorageKind.allCases)
    func discardedRefusalInvalidatesLists(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the list read cache-first, fresh for 300 s; then another client deletes note 1.
            fixture.server.cacheControl = "max-age=300"
            let messages = fixture.messages(recordOnly.with(.readAll, Rule(target: .remote, cache: .cacheFirst)))
            #expect(try await messages.readAll().value.value.count == 3)
            _ = try await fixture.session.request(.delete, "messages/1", as: Okay.self).value

            // When: the app's edit of note 1 is refused (404: gone), and the app discards it.
            _ = try await messages.update(Message(id: "1", text: "uno")).value
            let forwarder = Forwarder(for: messages)
            let refused = try #require(try await forwarder.flush().value.rejected.first)
            #expect(refused.rejection?.status == 404)
            #expect(try await forwarder.discard(refused).value)
            let list = try await messages.readAll().value

            // Then: the record is back to the server's last version, and the list asked the
            // server again, which no longer lists note 1.
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.syncState == .synced)
            #expect(list.origin == .remote && list.value.map(\.id) == ["2", "3"])
            #expect(fixture.gets("/messages").count == 2)
        }
    }
}
