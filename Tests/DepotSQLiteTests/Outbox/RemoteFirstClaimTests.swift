import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write is an outbox entry, recorded with its local write and sent under a claim
/// by the storage's sender: while it is out, no other sender (of this storage, or of another
/// storage object on the same SQLite file) sends a later write of the same entity before it.
@Suite struct RemoteFirstClaimTests {
    /// Who makes the later local write and flushes it.
    enum Sender: String, CaseIterable, Sendable, CustomStringConvertible {
        /// A forwarder of the same storage object.
        case sameStorage
        /// A forwarder of a second SQLite storage object on the same file (a replica).
        case replica
        var description: String { rawValue }
    }

    @Test(
        "a write made while a remote-first update is out is not sent before it: the server ends with the last write",
        arguments: Sender.allCases)
    func laterWriteWaitsForRemoteFirstUpdate(sender: Sender) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: message x stored synced, on a SQLite file (and a second storage object on it)
            server.resource("messages", objects: [["id": "x", "text": "a"]])
            // The default 60 s timeout: the update waits at the server while the steps below run,
            // which took a loaded machine over 5 s
            let session = NetworkingSession(url: server.url)
            let storage = try SQLiteStorage(path: directory.path("shared.sqlite"))
            let other: Storage =
                sender == .replica ? try SQLiteStorage(path: directory.path("shared.sqlite")) : storage
            let messages = OutboxMessages(store: session, storage: storage)
            _ = try await messages.readAll().value
            let writer = OutboxMessages(store: session, storage: other, strategy: recordOnly)
            let forwarder = Forwarder(
                for: writer, configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0))

            // When: a remote-first update to "b" is out (its answer held back until the test opens
            // the gate, however slow the machine), the app records "c" and the other sender flushes
            let gate = StubGate()
            server.inject(.hold(gate), pathPrefix: "/messages/x")
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.put, "/messages/:id") { _ in signal.yield() }
            let update = Task { try await messages.update(Message(id: "x", text: "b")).value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await writer.update(Message(id: "x", text: "c")).value
            let early = try await forwarder.flush().value

            // Then: "c" waited behind the update in flight; nothing else went to x
            #expect(early.delivered == 0)
            #expect(server.requests.filter { $0.method == "PUT" }.count == 1)
            gate.open()
            let answer = try await update.value
            #expect(answer.origin == .remote && answer.value.text == "b")

            // When: the other sender flushes again
            let late = try await forwarder.flush().value

            // Then: "c" went after "b": the server and both storage objects end with "c"
            #expect(late.delivered == 1)
            #expect(server.objects(in: "messages").first?["text"] == "c")
            #expect(server.requests.filter { $0.method == "PUT" }.compactMap { $0.json?["text"] } == ["b", "c"])
            for store in [storage, other] {
                let record = try #require(try await store.fetch(collection: "messages", id: "x"))
                #expect(record.syncState == .synced && record.object["text"] == "c")
            }
            #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
        }
    }

    @Test(
        "a remote-first update the server refuses leaves no trace: the record as it was, no entry",
        arguments: StoreKind.allCases)
    func refusedUpdateIsTakenBack(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "a"]]) { fixture in
            // Given: x stored synced
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            let before = try #require(try await fixture.stored("x"))

            // When: the update is refused 422
            fixture.server.inject(.status(422), pathPrefix: "/messages/x")
            let error = await #expect(throws: DepotError.self) {
                _ = try await messages.update(Message(id: "x", text: "b")).value
            }

            // Then: the server's refusal, the record as it was, nothing queued
            #expect(error?.status == 422)
            #expect(try await fixture.stored("x") == before)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("x")?["text"] == "a")
        }
    }

    @Test(
        "a remote-first create refused 422 stores nothing and queues nothing",
        arguments: StoreKind.allCases)
    func refusedCreateIsTakenBack(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository()
            fixture.server.inject(.status(422), pathPrefix: "/messages")
            let error = await #expect(throws: DepotError.self) {
                _ = try await messages.create(Message(id: "y", text: "b")).value
            }
            #expect(error?.status == 422)
            let stored = try await fixture.stored("y")
            let queued = try await fixture.outbox()
            #expect(stored == nil && queued.isEmpty)
        }
    }
}
