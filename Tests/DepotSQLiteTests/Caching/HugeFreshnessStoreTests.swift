import Depot
import DepotTesting
import Foundation
import Testing

/// Issue 32 #9 through a real store: a `max-age` clamped to 2^31 and an `Age` of 2^31 are
/// written to the stored cache entry and read back from it as they were, on every kind of store.
@Suite struct HugeFreshnessStoreTests {
    /// The stored entry of message `id`.
    private func entry(_ fixture: HTTPCacheFixture, _ id: String) async throws -> JSONObject? {
        try await fixture.cacheEntries().first { $0.object["ids"] == nil && $0.id.hasSuffix("/" + id) }?.object
    }

    @Test(
        "max-age=99999999999999999999 round-trips through the stored entry: it reads back fresh, with its ETag",
        arguments: StorageKind.allCases)
    func hugeMaxAgeStaysFresh(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: message 1 read once, fresh "for ever" (max-age clamped to 2^31 s).
            fixture.server.cacheControl = "max-age=99999999999999999999"
            let first = try await fixture.messages(.cacheFirst).read("1").value
            #expect(first.origin == .remote)
            let stored = try #require(try await entry(fixture, "1"))
            #expect(stored["lifetime"] == .integer(1 << 31))

            // When: ten years later, it is read cache-first.
            fixture.clock.advance(by: .seconds(86_400 * 3_650))
            let cached = try await fixture.messages(.cacheFirst).read("1").value

            // Then: the stored entry is still fresh: no request.
            #expect(cached.origin == .local && cached.value.text == "one")
            #expect(fixture.gets("/messages/1").count == 1)

            // And: it kept its ETag: a remote-first read revalidates with it.
            let revalidated = try await fixture.messages().read("1").value
            #expect(revalidated.value.text == "one")
            let etag = try #require(fixture.server.etag(of: "1", in: "messages"))
            #expect(fixture.gets("/messages/1").last?.header("if-none-match") == etag)
            #expect(fixture.server.notModifiedCount == 1)
        }
    }

    @Test(
        "Age: 2147483648 round-trips through the stored entry: it reads back with its ETag, and revalidates with it",
        arguments: StorageKind.allCases)
    func hugeAgeKeepsETag(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server whose answers for message 1 are 2^31 s old.
            fixture.server.route(.get, "/messages/1") { request, _ in
                let headers = ["ETag": "\"a1\"", "Age": "2147483648"]
                if request.header("if-none-match") == "\"a1\"" { return StubResponse(status: 304, headers: headers) }
                return .json(["id": "1", "text": "one"], headers: headers)
            }
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            let stored = try #require(try await entry(fixture, "1"))
            #expect(stored["initialAge"] == .integer(1 << 31) && stored["etag"] == "\"a1\"")

            // When: it is read again.
            let again = try await messages.read("1").value

            // Then: the entry read back whole: the GET carried its ETag, and the 304 answered.
            #expect(again.origin == .remote && again.value.text == "one")
            #expect(fixture.gets("/messages/1").map { $0.header("if-none-match") } == [nil, "\"a1\""])
        }
    }
}
