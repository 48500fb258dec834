import Depot
import DepotTesting
import Foundation
import Testing

/// `readAll` under the cache strategies: answered from the store while the list is fresh.
@Suite struct HTTPCacheListTests {
    @Test(
        "readAll under cacheFirst: no request while fresh, a conditional GET after max-age",
        arguments: StorageKind.allCases)
    func cacheFirstList(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: lists fresh for 60 s, read once.
            fixture.server.cacheControl = "max-age=60"
            let messages = fixture.messages(.cacheFirst)
            let first = try await messages.readAll().value
            #expect(fixture.gets("/messages").count == 1 && first.origin == .remote)

            // When: read again 30 s later, then 61 s later.
            fixture.clock.advance(by: .seconds(30))
            let fresh = try await messages.readAll().value
            let requestsWhileFresh = fixture.gets("/messages").count
            fixture.clock.advance(by: .seconds(31))
            let revalidated = try await messages.readAll().value

            // Then: the fresh read asked nothing and gave the list in the server's order; the
            // stale one revalidated with a conditional GET answered 304.
            #expect(requestsWhileFresh == 1 && fresh.origin == .local && !fresh.isStale)
            #expect(fresh.value.map(\.id) == ["1", "2", "3"] && fresh.value == first.value)
            #expect(fixture.gets("/messages").count == 2 && fixture.server.notModifiedCount == 1)
            #expect(fixture.gets("/messages").last?.header("if-none-match") != nil)
            #expect(revalidated.origin == .remote && revalidated.value == first.value)
            // The 304 renewed the list's freshness: the next read asks nothing.
            _ = try await messages.readAll().value
            #expect(fixture.gets("/messages").count == 2)
        }
    }

    @Test(
        "readAll under staleWhileRevalidate: the stale list at once, the server's change stored behind it",
        .timeLimit(.minutes(TestTimeScale.factor)))
    func staleWhileRevalidateList() async throws {
        try await withHTTPCacheFixture(.sqliteFile) { fixture in
            // Given: a list fresh for 10 s, read once, then changed on the server.
            fixture.server.cacheControl = "max-age=10"
            let messages = fixture.messages(.staleWhileRevalidate)
            _ = try await messages.readAll().value
            _ = try await fixture.session.request(.put, "messages/2", body: ["id": "2", "text": "dos"]).value
            fixture.clock.advance(by: .seconds(11))

            // When: the stale list is read (watching the store for what comes behind it).
            var changes = fixture.storage.changes(collection: "messages").makeAsyncIterator()
            let stale = try await messages.readAll().value

            // Then: the stored list answers at once, marked stale; the background GET stores the
            // server's change, which the next read (fresh again) gives with no request.
            #expect(stale.origin == .local && stale.isStale && stale.value.first { $0.id == "2" }?.text != "dos")
            while let change = await changes.next(), !change.changed.contains("2") {}
            #expect(try await fixture.storage.fetch(collection: "messages", id: "2")?.object["text"] == "dos")
            let requests = fixture.gets("/messages").count
            let next = try await messages.readAll().value
            #expect(next.value.first { $0.id == "2" }?.text == "dos" && !next.isStale)
            #expect(fixture.gets("/messages").count == requests)
        }
    }
}
