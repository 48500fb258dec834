import Depot
import DepotTesting
import Foundation
import Testing

/// Messages pulled incrementally by `v`.
private struct Stamped: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(incremental: IncrementalPull(parameter: "since", cursor: .maximum(of: "v")))
    }
}

/// "Cursors and page validators move only past rows merged."
@Suite struct PullHoldsCursorTests {
    @Test(
        "an incremental pull never skips a change for good: a row kept out by a newer delivery holds the cursor",
        arguments: StorageKind.allCases)
    func deliveryHoldsCursor(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: x and y pulled (cursor 2).
            let pages = LockedValue<[String: JSON]>([
                "": [["id": "x", "text": "x1", "v": 1], ["id": "y", "text": "y1", "v": 2]],
                "2": [["id": "x", "text": "theirs", "v": 4], ["id": "y", "text": "y2", "v": 5]],
                "4": [["id": "x", "text": "theirs", "v": 4], ["id": "y", "text": "y2", "v": 5]],
            ])
            let gate = LockedValue<StubGate?>(nil)
            server.route(.get, "/messages") { request, _ in
                let page = pages.withLock { $0[request.query["since"] ?? ""] } ?? []
                return gate.withLock { $0 }.map { .json(page).held(until: $0) } ?? .json(page)
            }
            server.route(.put, "/messages/:id") { request, _ in
                .json((try? JSON(parsing: request.body)) ?? .null)
            }
            let storage = try await kind.make(in: directory)
            let messages = Stamped(store: NetworkingSession(url: server.url), storage: storage)
            _ = try await messages.synchronize().value

            // When: a pull's page (x and y changed by another client) is out while the app's own
            // update of x is answered.
            // (the page held until the update is answered, however slow the machine)
            let held = StubGate()
            defer { held.open() }
            gate.withLock { $0 = held }
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.get, "/messages") { _ in signal.yield() }
            let pull = Task { try await messages.synchronize().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await messages.update(Message(id: "x", text: "mine")).value
            gate.withLock { $0 = nil }
            held.open()
            _ = try await pull.value
            #expect(try await storage.fetch(collection: "messages", id: "x")?.object["text"] == "mine")

            // Then: the cursor stayed at x's stamp, so the next pull brings x again and the store
            // ends where the server is.
            _ = try await messages.synchronize().value
            let since = server.requests.filter { $0.method == "GET" }.map { $0.query["since"] }
            #expect(since.last == "4")
            #expect(try await storage.fetch(collection: "messages", id: "x")?.object["text"] == "theirs")
        }
    }
}

extension PullHoldsCursorTests {
    @Test(
        "a page with a row kept out (a pending local change) stores no page validator: the next full pull reads it whole",
        arguments: StorageKind.allCases)
    func keptRowStoresNoPageValidator(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: message 1 changed locally, not sent.
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            var stored = try #require(try await fixture.storage.fetch(collection: "messages", id: "1"))
            stored.object["text"] = "mine"
            stored.syncState = .updated
            try await fixture.storage.upsert(stored)
            let pull = SynchronizationConfiguration(
                pagination: .pageQuery(page: "_page", limit: "_limit", size: 2), push: false)
            var puller = messages
            puller.synchronization = pull

            // When: two full pulls run.
            let first = try await puller.synchronize().value
            fixture.server.clearRequests()
            _ = try await puller.synchronize().value

            // Then: the first page (holding message 1) was read whole again, never conditionally.
            #expect(first.conflicts == 1)
            let firstPage = try #require(fixture.gets("/messages").first { $0.query["_page"] == "1" })
            #expect(firstPage.header("if-none-match") == nil)
        }
    }
}
