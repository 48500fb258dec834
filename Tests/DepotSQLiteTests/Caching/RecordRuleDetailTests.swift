import Depot
import DepotTesting
import Foundation
import Testing

/// "One record, one rule": a record's own detail answer is the record, whole; only a list or page
/// summary merges into what the store holds.
@Suite struct RecordRuleDetailTests {
    @Test(
        "a detail answer without ETag that leaves a field out drops it: no later cache-first read answers it",
        arguments: StorageKind.allCases)
    func detailAnswerReplacesWhole(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: note 1 served without validators, fresh for 60 s, first with `likes: 5`
            fixture.server.servesValidators = false
            let likes = LockedValue<Int?>(5)
            fixture.server.route(.get, "/messages/1") { _, _ in
                var note: JSONObject = ["id": "1", "text": "one"]
                if let count = likes.withLock({ $0 }) { note["likes"] = .integer(Int64(count)) }
                return .json(.object(note), headers: ["Cache-Control": "max-age=60"])
            }
            let messages = fixture.messages()
            #expect(try await messages.read("1").value.value.likes == 5)

            // When: the server leaves the field out (a server that omits null keys), and note 1 is read again
            likes.withLock { $0 = nil }
            let second = try await messages.read("1").value

            // Then: the answer, the stored record and its snapshot have no `likes`
            #expect(second.value.likes == nil)
            let stored = try #require(try await fixture.storage.fetch(collection: "messages", id: "1"))
            #expect(stored.object["likes"] == nil && stored.snapshot?["likes"] == nil)

            // When: read cache-first while the second answer's entry is fresh
            let cached = try await fixture.messages(.cacheFirst).read("1").value

            // Then: it answers from the store, what the second answer said
            #expect(cached.origin == .local && cached.value.likes == nil)
            #expect(fixture.gets("/messages/1").count == 2)
        }
    }
}
