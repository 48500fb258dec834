import Depot
import DepotTesting
import Foundation
import Testing

/// "Store no page ETag for a page with a skipped row", whatever the reason the row was skipped:
/// the sides of ``PullHoldsCursorTests/keptRowStoresNoPageValidator(kind:)`` beside a pending
/// local change.
@Suite struct PageValidatorSkipTests {
    /// The URLs of the page entries the store keeps.
    private func pageURLs(_ fixture: HTTPCacheFixture) async throws -> [String] {
        try await fixture.cacheEntries().filter { $0.object["ids"] != nil }.compactMap { $0.object["url"]?.stringValue }
            .sorted()
    }

    /// The `If-None-Match` each page's GET sent, by page number.
    private func validators(_ fixture: HTTPCacheFixture) -> [String: String?] {
        var sent: [String: String?] = [:]
        for request in fixture.gets("/messages") {
            sent[request.query["_page"] ?? ""] = .some(request.header("if-none-match"))
        }
        return sent
    }

    @Test(
        "a page with a row kept out by a delivery since its request began stores no page validator",
        arguments: StorageKind.allCases)
    func deliverySkipStoresNoPageValidator(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: page 1's answer (messages 1 and 2) held at the server until the test opens it.
            let messages = fixture.messages()
            let gate = StubGate()
            fixture.server.inject(.hold(gate), times: 1, pathPrefix: "/messages")
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            fixture.server.observe(.get, "/messages") { _ in signal.yield() }

            // When: a full pull runs, and while page 1 is out the app's own update of message 1
            // is answered and stored.
            let pull = Task { try await messages.synchronize().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await messages.update(Message(id: "1", text: "mine")).value
            gate.open()
            let report = try await pull.value

            // Then: message 1 kept the delivery; only page 2, merged whole, keeps its validator.
            #expect(report.pullCompleted && report.errors.isEmpty)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "mine")
            let urls = try await pageURLs(fixture)
            #expect(urls.count == 1 && urls.allSatisfy { $0.contains("page=2") })

            // When: the next full pull runs. Then: page 1 is read whole, page 2 conditionally.
            fixture.server.clearRequests()
            _ = try await messages.synchronize().value
            let sent = validators(fixture)
            #expect(sent["1"] == .some(nil))
            #expect(sent["2"] != nil && sent["2"] != .some(nil))
        }
    }

    @Test(
        "a page with an unreadable (quarantined) row stores no page validator: the next full pull reads it whole",
        arguments: StorageKind.allCases)
    func unreadableRowStoresNoPageValidator(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: all three messages pulled (two pages), then another client makes message 1
            // unreadable to the app (text a number).
            let messages = fixture.messages()
            _ = try await messages.synchronize().value
            _ = try await fixture.session.request(
                .put, "messages/1", body: ["id": "1", "text": 5], as: Okay.self
            ).value

            // When: a full pull reads page 1 with the unreadable row.
            let report = try await messages.synchronize().value

            // Then: the row is quarantined, the record keeps what the app could read, and page 1
            // keeps no validator (page 2 does).
            #expect(report.unreadable.map(\.id) == ["1"])
            #expect(try await messages.quarantined().value.map(\.id) == ["1"])
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "one")
            let urls = try await pageURLs(fixture)
            #expect(urls.count == 1 && urls.allSatisfy { $0.contains("page=2") })

            // When: the next full pull runs. Then: page 1 is read whole, page 2 conditionally.
            fixture.server.clearRequests()
            _ = try await messages.synchronize().value
            let sent = validators(fixture)
            #expect(sent["1"] == .some(nil))
            #expect(sent["2"] != nil && sent["2"] != .some(nil))
        }
    }
}
