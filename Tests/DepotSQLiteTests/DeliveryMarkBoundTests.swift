import Depot
import DepotTesting
import Foundation
import Testing

/// Delivery marks are bounded: a mark goes once no read that began before it is still open, and
/// stays while one is (so that read's older copy still never overwrites the delivery).
@Suite struct DeliveryMarkBoundTests {
    /// How many create+delete cycles the bound test runs: `DEPOT_DELIVERY_CYCLES` (10000 to
    /// measure), 48 in the suite.
    static let cycles = ProcessInfo.processInfo.environment["DEPOT_DELIVERY_CYCLES"].flatMap { Int($0) } ?? 48

    /// The most marks left when no read is open: those a removal waits to gather, and a few more.
    static let bound = 40

    @Test("create+delete cycles leave a bounded number of delivery marks", arguments: StorageKind.allCases)
    func marksBounded(kind: StorageKind) async throws {
        try await withMarkFixture(kind) { server, storage, messages in
            // When: entities are created and deleted remote-first, each write answered and stored
            for index in 0..<Self.cycles {
                _ = try await messages.create(Message(id: "m\(index)", text: "hi")).value
                _ = try await messages.delete(id: "m\(index)").value
            }

            // Then: a bounded number of marks is left, not one per entity
            let marks = try await deliveryMarks(storage)
            print("delivery marks after \(Self.cycles) create+delete cycles on \(kind): \(marks)")
            #expect(marks <= Self.bound)
            #expect(server.objects(in: "messages").isEmpty)
        }
    }

    @Test(
        "a pull open across many deliveries keeps their marks: its older page overwrites none, stores the rest",
        arguments: StorageKind.allCases)
    func marksStayForOpenRead(kind: StorageKind) async throws {
        try await withMarkFixture(kind) { server, storage, messages in
            // Given: the server holds 1 ("old") and 2; the app pulled both; then another client adds 3
            server.resource("messages", objects: [["id": "1", "text": "old"], ["id": "2", "text": "doomed"]])
            _ = try await messages.synchronize().value
            _ = try await messages.store.request(.post, "messages", body: ["id": "3", "text": "theirs"]).value

            // And: the next list read is answered as the server stands when it arrives, held there
            let gate = StubGate()
            server.inject(.hold(gate), pathPrefix: "/messages")
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.get, "/messages") { _ in signal.yield() }

            // When: a pull is out while the app updates 1, deletes 2, and makes more deliveries
            // than a removal waits for (32 marks)
            let sync = Task { try await messages.synchronize().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await messages.update(Message(id: "1", text: "new")).value
            _ = try await messages.delete(id: "2").value
            for index in 0..<36 {
                _ = try await messages.create(Message(id: "m\(index)", text: "hi")).value
                _ = try await messages.delete(id: "m\(index)").value
            }
            gate.open()
            let report = try await sync.value

            // Then: the older page changed neither delivery, and stored the entity the app never wrote
            #expect(report.errors.isEmpty)
            let one = try #require(try await storage.fetch(collection: "messages", id: "1"))
            #expect(one.object["text"] == "new" && one.syncState == .synced)
            #expect(try await storage.fetch(collection: "messages", id: "2") == nil)
            #expect(try await storage.fetch(collection: "messages", id: "3")?.object["text"] == "theirs")

            // And: once the pull is over, the next read removes the marks it kept
            _ = try await messages.read("1").value
            #expect(try await deliveryMarks(storage) <= Self.bound)
        }
    }

    /// A stub server serving an empty `messages`, a store of `kind` and a remote-first repository.
    func withMarkFixture(
        _ kind: StorageKind, _ body: (StubServer, any Storage, OutboxMessages) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("messages")
            let storage = try await kind.make(in: directory)
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(timeout: TestTimeScale.scaled(.seconds(60))))
            try await body(server, storage, OutboxMessages(store: session, storage: storage))
        }
    }

    /// How many delivery marks `storage` holds (its sequence row left out).
    func deliveryMarks(_ storage: any Storage) async throws -> Int {
        try await storage.fetch(collection: "__depot_deliveries", matching: .all).filter { !$0.id.hasPrefix("#") }.count
    }
}
