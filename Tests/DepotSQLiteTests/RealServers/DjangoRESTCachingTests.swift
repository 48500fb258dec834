import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Notes through the store's HTTP cache against Django REST Framework behind Django's
/// `ConditionalGetMiddleware` (an ETag on every GET, 304 for a matching `If-None-Match`).
struct CachingDRFNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    var path = "notes/"
    var strategy: Strategy = .remoteFirst
    var configuration = RepositoryConfiguration.djangoREST
    var synchronization: SynchronizationConfiguration { .djangoREST }
}

/// A DRF server with `count` notes, a SQLite store, a manual cache clock and a plain session.
private func withCachingDRF(
    notes count: Int, path: String = "notes/", strategy: Strategy = .remoteFirst,
    _ body: (RealServer, CachingDRFNotes, ManualForwarderClock) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.djangoREST) { server in
        try await server.control(.post, "__seed/", ["count": .integer(Int64(count))])
        let storage = try SQLiteStorage(path: directory.path("drf-cache.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        // Starts at the real time: an answer's age counts from Django's `Date` header.
        let clock = ManualForwarderClock(start: Date())
        var notes = CachingDRFNotes(store: session, storage: storage, path: path, strategy: strategy)
        notes.configuration.cacheClock = clock
        try await body(server, notes, clock)
    }
}

/// The GETs of `path` in the server's request log, in order.
private func gets(_ server: RealServer, _ path: String) async throws -> [JSONObject] {
    try await server.requests("__requests/").filter { $0["method"] == "GET" && $0["path"] == .string(path) }
}

// The conditional reads are DjangoRESTTests' own, so they run serialized with the rest of that
// suite: every test resets the one shared DRF server.
extension DjangoRESTTests {
    @Test("read(id) twice against DRF: the second sends If-None-Match and Django answers 304")
    func conditionalRead() async throws {
        try await withCachingDRF(notes: 1) { server, notes, _ in
            // Given: note 1 read once, its ETag (from ConditionalGetMiddleware) stored.
            let first = try await notes.read(1).value
            let stored = try await notes.storage.fetch(collection: notes.collection, id: "1")

            // When: it is read again.
            let second = try await notes.read(1).value

            // Then: the second GET was conditional, Django answered 304, and the answer is the
            // stored copy, untouched.
            let log = try await gets(server, "/notes/1/")
            #expect(log.map { $0["status"] } == [200, 304])
            #expect(log.first?["if_none_match"] == .null)
            let sent = try #require(log.last?["if_none_match"]?.stringValue)
            #expect(sent.hasPrefix("\"") && sent.hasSuffix("\""))
            #expect(second.value == first.value && second.value.title == "Note 1" && second.origin == .remote)
            #expect(try await notes.storage.fetch(collection: notes.collection, id: "1") == stored)
        }
    }

    @Test("a note changed on the DRF server: the conditional read gets 200 and the new title")
    func changedOnServer() async throws {
        try await withCachingDRF(notes: 1) { server, notes, _ in
            // Given: note 1 read once, then changed behind the app's back.
            _ = try await notes.read(1).value
            var request = NetworkRequest(method: .patch, path: "notes/1/")
            request.body = try JSON.object(["title": "edited"]).serialized()
            request.headers[.contentType] = "application/json"
            _ = try await NetworkingSession(url: server.url).send(request)

            // When: it is read twice more.
            let changed = try await notes.read(1).value
            _ = try await notes.read(1).value

            // Then: the ETag no longer matched (200, new body); the next read matched the new one.
            #expect(changed.value.title == "edited")
            #expect(try await gets(server, "/notes/1/").map { $0["status"] } == [200, 200, 304])
            #expect(
                try await notes.storage.fetch(collection: notes.collection, id: "1")?.object["title"] == "edited")
        }
    }

    @Test("cacheFirst on DRF's cache_control(max_age=60): no request while fresh, a 304 after")
    func cacheFirst() async throws {
        try await withCachingDRF(notes: 1, path: "cached-notes/", strategy: .cacheFirst) { server, notes, clock in
            // Given: note 1 read once from a route that sends max-age=60.
            _ = try await notes.read(1).value

            // When: read 30 s later, then 61 s later.
            clock.advance(by: .seconds(30))
            let fresh = try await notes.read(1).value
            let whileFresh = try await gets(server, "/cached-notes/1/").count
            clock.advance(by: .seconds(31))
            let revalidated = try await notes.read(1).value

            // Then: the fresh read asked nothing and came from the store; the stale one was
            // revalidated with a conditional GET that Django answered 304.
            #expect(whileFresh == 1)
            #expect(fresh.origin == .local && !fresh.isStale && fresh.value.title == "Note 1")
            #expect(try await gets(server, "/cached-notes/1/").map { $0["status"] } == [200, 304])
            #expect(revalidated.value == fresh.value)
        }
    }

    @Test("a second pull of an unchanged DRF list: every page a conditional GET answered 304, nothing pulled")
    func conditionalPull() async throws {
        try await withCachingDRF(notes: 30) { server, notes, _ in
            // Given: a first pull stored 30 notes over DRF's two pages of 25, with each page's ETag.
            let first = try await notes.synchronize().value
            #expect(first.pulled == 30 && first.pages == 2 && first.notModified == 0)
            let before = try await notes.storage.fetch(collection: notes.collection, matching: .all)

            // When: the unchanged list is pulled again.
            let second = try await notes.synchronize().value

            // Then: both pages went out with If-None-Match, Django answered 304 for each, nothing
            // was pulled or written, and the pull still counts as complete.
            let pages = try await gets(server, "/notes/")
            #expect(pages.map { $0["status"] } == [200, 200, 304, 304])
            #expect(pages.suffix(2).allSatisfy { $0["if_none_match"]?.stringValue != nil })
            #expect(second.notModified == 2 && second.pulled == 0 && second.pullCompleted)
            #expect(try await notes.storage.fetch(collection: notes.collection, matching: .all) == before)
        }
    }
}
