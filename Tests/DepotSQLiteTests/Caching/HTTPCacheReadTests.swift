import Depot
import DepotTesting
import Foundation
import Testing

/// `read(id)` through the HTTP cache in the store: conditional GETs, 304s, strategies, Vary.
@Suite struct HTTPCacheReadTests {
    @Test(
        "read(id) twice: the second is a conditional GET answered 304, the store untouched",
        arguments: StorageKind.allCases)
    func readTwice(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: one read stored message 1 with its ETag.
            let messages = fixture.messages()
            let first = try await messages.read("1").value
            let stored = try await fixture.storage.fetch(collection: "messages", id: "1")
            let etag = try #require(stored?.etag)

            // When: it is read again.
            let second = try await messages.read("1").value

            // Then: the GET carried If-None-Match, the server answered 304, the answer is the
            // stored copy, and the record is exactly as it was.
            #expect(fixture.gets("/messages/1").last?.header("if-none-match") == etag)
            #expect(fixture.server.notModifiedCount == 1)
            #expect(first.value == second.value && second.origin == .remote && !second.isStale)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1") == stored)
        }
    }

    @Test("a changed entity: 200, the new value stored with new validators", arguments: [StorageKind.sqliteFile])
    func changedEntity(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            // Given: the server's copy changed behind the app's back.
            _ = try await fixture.session.request(.put, "messages/1", body: ["id": "1", "text": "uno"]).value
            // When / Then: the conditional GET gets the new body.
            let read = try await messages.read("1").value
            #expect(read.value.text == "uno" && fixture.server.notModifiedCount == 0)
            _ = try await messages.read("1").value
            #expect(fixture.server.notModifiedCount == 1)
        }
    }

    @Test("cacheFirst: no request while fresh, a conditional GET after max-age", arguments: StorageKind.allCases)
    func cacheFirst(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: answers fresh for 60 s.
            fixture.server.cacheControl = "max-age=60"
            let messages = fixture.messages(.cacheFirst)
            _ = try await messages.read("1").value
            #expect(fixture.gets("/messages/1").count == 1)

            // When: read again 30 s later, then 61 s later.
            fixture.clock.advance(by: .seconds(30))
            let fresh = try await messages.read("1").value
            let requestsWhileFresh = fixture.gets("/messages/1").count
            fixture.clock.advance(by: .seconds(31))
            let revalidated = try await messages.read("1").value

            // Then: the fresh read asked nothing; the stale one revalidated (304).
            #expect(requestsWhileFresh == 1 && fresh.origin == .local && !fresh.isStale && fresh.value.text == "one")
            #expect(fixture.gets("/messages/1").count == 2 && fixture.server.notModifiedCount == 1)
            #expect(revalidated.origin == .remote)
            // The 304 renewed the freshness: the next read asks nothing.
            _ = try await messages.read("1").value
            #expect(fixture.gets("/messages/1").count == 2)
        }
    }

    @Test("cacheFirst with no cache headers: the repository's defaultMaxAge", arguments: [StorageKind.memory])
    func defaultMaxAge(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let messages = fixture.messages(.cacheFirst, defaultMaxAge: 10)
            let without = fixture.messages(.cacheFirst)
            _ = try await messages.read("1").value
            _ = try await messages.read("1").value
            #expect(fixture.gets("/messages/1").count == 1)
            // Without a default, an answer with no freshness is always revalidated.
            _ = try await without.read("1").value
            #expect(fixture.gets("/messages/1").count == 2 && fixture.server.notModifiedCount == 1)
        }
    }

    @Test(
        "no-cache and must-revalidate: cacheFirst revalidates every time",
        arguments: ["no-cache", "max-age=0, must-revalidate"])
    func forcedRevalidation(cacheControl: String) async throws {
        try await withHTTPCacheFixture(.sqliteFile) { fixture in
            fixture.server.cacheControl = cacheControl
            let messages = fixture.messages(.staleWhileRevalidate, defaultMaxAge: 600)
            _ = try await messages.read("1").value
            let second = try await messages.read("1").value
            #expect(fixture.gets("/messages/1").count == 2 && fixture.server.notModifiedCount == 1)
            #expect(second.origin == .remote && !second.isStale)
        }
    }

    @Test(
        "staleWhileRevalidate: the stored copy at once, stale; a live query sees the revalidated value",
        arguments: StorageKind.allCases)
    func staleWhileRevalidate(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: message 1 stored, then changed on the server.
            let messages = fixture.messages(.staleWhileRevalidate)
            _ = try await messages.read("1").value
            _ = try await fixture.session.request(.put, "messages/1", body: ["id": "1", "text": "uno"]).value
            var live = messages.observe(id: "1").makeAsyncIterator()
            #expect(await live.next()??.text == "one")

            // When: it is read.
            let answer = try await messages.read("1").value

            // Then: the old copy answers at once, marked stale; the background revalidation
            // stores the server's value, and the live query sees it.
            #expect(answer.origin == .local && answer.isStale && answer.value.text == "one")
            var seen = "one"
            while seen != "uno", let next = await live.next() { seen = next?.text ?? "" }
            #expect(seen == "uno")
        }
    }

    @Test(
        "Vary: Authorization: a second account never gets the first one's cached answer",
        arguments: StorageKind.allCases)
    func varyAuthorization(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: answers fresh for a minute, varying on Authorization; account A read message 1.
            fixture.server.cacheControl = "max-age=60"
            fixture.server.vary = "Authorization"
            let ann = fixture.messages(.cacheFirst, session: fixture.session(headers: ["Authorization": "Bearer ann"]))
            let bob = fixture.messages(.cacheFirst, session: fixture.session(headers: ["Authorization": "Bearer bob"]))
            _ = try await ann.read("1").value

            // When: account B reads it, on the same store.
            let bobs = try await bob.read("1").value

            // Then: B's read went to the server, unconditionally; A's token is not in the store.
            let gets = fixture.gets("/messages/1")
            #expect(gets.count == 2 && gets[1].header("authorization") == "Bearer bob")
            #expect(gets[1].header("if-none-match") == nil && bobs.origin == .remote)
            let entries = try await fixture.cacheEntries()
            #expect(!entries.isEmpty && !"\(entries)".contains("Bearer"))
            // And A's fresh copy is still A's... until B's answer replaced it: A asks again.
            _ = try await ann.read("1").value
            #expect(fixture.gets("/messages/1").count == 3)
        }
    }

    @Test("Vary: * never matches", arguments: [StorageKind.memory])
    func varyStar(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            fixture.server.cacheControl = "max-age=60"
            fixture.server.vary = "*"
            let messages = fixture.messages(.cacheFirst)
            _ = try await messages.read("1").value
            _ = try await messages.read("1").value
            #expect(
                fixture.gets("/messages/1").count == 2 && fixture.gets("/messages/1")[1].header("if-none-match") == nil)
        }
    }

    @Test("no-store: never stored, never conditional", arguments: StorageKind.allCases)
    func noStore(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            fixture.server.cacheControl = "no-store"
            let messages = fixture.messages(.cacheFirst, defaultMaxAge: 600)
            _ = try await messages.read("1").value
            _ = try await messages.read("1").value
            #expect(try await fixture.cacheEntries().isEmpty)
            #expect(
                fixture.gets("/messages/1").count == 2 && fixture.gets("/messages/1")[1].header("if-none-match") == nil)
        }
    }

    @Test("stale-if-error: a stale copy answers a failing server only within the window", arguments: [true, false])
    func staleIfError(withDirective: Bool) async throws {
        try await withHTTPCacheFixture(.sqliteFile) { fixture in
            // Given: a rule with no fallback; answers stale at once, maybe usable after errors.
            fixture.server.cacheControl = withDirective ? "max-age=0, stale-if-error=60" : "max-age=0"
            let messages = fixture.messages(Strategy(Rule(target: .remote)))
            _ = try await messages.read("1").value
            fixture.server.inject(.status(503), times: 3)

            // When / Then: within the window the stored copy answers, stale, with the cause.
            if withDirective {
                let answer = try await messages.read("1").value
                #expect(answer.origin == .local && answer.isStale && answer.value.text == "one")
                #expect(answer.fallbackError?.status == 503)
                // Past the window it does not.
                fixture.clock.advance(by: .seconds(61))
            }
            await #expect { try await messages.read("1").value } throws: { ($0 as? DepotError)?.status == 503 }
        }
    }

    @Test("stale-if-error under no-cache: the stale copy is never served, the error reaches the caller")
    func staleIfErrorUnderNoCache() async throws {
        try await withHTTPCacheFixture(.memory) { fixture in
            // Given: an answer that allows stale-if-error but must be revalidated before every use.
            fixture.server.cacheControl = "no-cache, stale-if-error=60"
            let messages = fixture.messages(Strategy(Rule(target: .remote)))
            _ = try await messages.read("1").value
            fixture.server.inject(.status(503), times: 3)

            // When / Then: the failing revalidation is the answer (RFC 9111 §4.2.4).
            await #expect { try await messages.read("1").value } throws: { ($0 as? DepotError)?.status == 503 }
        }
    }

    @Test("a local write drops the record's validators", arguments: StorageKind.allCases)
    func localWriteInvalidates(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let messages = fixture.messages(.cacheFirst, defaultMaxAge: 600)
            _ = try await messages.read("1").value
            #expect(try await fixture.cacheEntries().count == 1)
            // When: the app changes message 1 locally.
            _ = try await LocalMessages(storage: fixture.storage).update(Message(id: "1", text: "mine")).value
            // Then: its entry is gone, and a read asks the server, unconditionally.
            #expect(try await fixture.cacheEntries().isEmpty)
            let read = try await messages.read("1").value
            #expect(
                fixture.gets("/messages/1").count == 2 && fixture.gets("/messages/1")[1].header("if-none-match") == nil)
            #expect(read.origin == .remote)
        }
    }

    @Test("hostile cache headers never trap, and leave reads working", arguments: [StorageKind.memory])
    func hostileHeaders(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let hostile = [
                "max-age=99999999999999999999999, stale-if-error=-5, stale-while-revalidate=abc",
                "max-age=\"", ",,,;;;=", String(repeating: "max-age=1,", count: 2000), "no-cache=\"a, b",
            ]
            fixture.server.vary = (0..<200).map { "X-H\($0)" }.joined(separator: ", ")
            for (index, value) in hostile.enumerated() {
                fixture.server.cacheControl = value
                for strategy in [Strategy.cacheFirst, .staleWhileRevalidate, .remoteFirst] {
                    let read = try await fixture.messages(strategy, defaultMaxAge: index).read("1").value
                    #expect(read.value.text == "one")
                }
            }
        }
    }

    @Test(
        "readAll twice: the second is a 304 answered from the store, in the server's order",
        arguments: StorageKind.allCases)
    func readAllTwice(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: one readAll stored the list and its validators.
            let messages = fixture.messages()
            let first = try await messages.readAll().value
            let before = try await fixture.storage.fetch(collection: "messages", matching: .all)

            // When: the unchanged list is read again.
            let second = try await messages.readAll().value

            // Then: a conditional GET, a 304, the same entities in the same order, the store as it was.
            #expect(fixture.gets("/messages").last?.header("if-none-match") != nil)
            #expect(fixture.server.notModifiedCount == 1 && second.origin == .remote)
            #expect(second.value == first.value && second.value.map(\.id) == ["1", "2", "3"])
            #expect(try await fixture.storage.fetch(collection: "messages", matching: .all) == before)

            // And: once a listed record changes locally, the list is read in full again.
            _ = try await LocalMessages(storage: fixture.storage).update(Message(id: "2", text: "mine")).value
            _ = try await messages.readAll().value
            #expect(fixture.gets("/messages").last?.header("if-none-match") == nil)
        }
    }
}
