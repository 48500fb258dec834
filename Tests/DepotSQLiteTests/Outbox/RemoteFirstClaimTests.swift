import Depot
import DepotSQLite
import DepotTesting
import Foundation
import GRDB
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
            let file = try await SharedFile(server: server, path: directory.path("shared.sqlite"), sender: sender)
            let (storage, other, writer, forwarder) = (file.storage, file.other, file.writer, file.forwarder)

            // When: a remote-first update to "b" is out (its answer held back until the test opens
            // the gate, however slow the machine), the app records "c" and the other sender flushes
            let (gate, update) = await file.updateHeldAtServer()
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
        "a remote-first update whose lease lapsed while it is out is not sent again by another sender of this process",
        arguments: Sender.allCases)
    func openClaimOutlivesItsLease(sender: Sender) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: message x stored synced, on a SQLite file (and a second storage object on it),
            // on a server that ignores Idempotency-Keys: a second send would apply twice
            let path = directory.path("shared.sqlite")
            let file = try await SharedFile(server: server, path: path, sender: sender)
            server.setIgnoresIdempotencyKeys(true, for: "messages")
            let forwarder = file.forwarder

            // When: a remote-first update to "b" is out (its answer held until the test opens the
            // gate), the store's clock passes its lease (as when its sender's renewals starve on
            // a loaded machine: the expiry is behind, the sender alive), and the other sender
            // flushes
            let (gate, update) = await file.updateHeldAtServer()
            let ahead = Date().timeIntervalSince1970 + 3_600
            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO lease_clock (id, latest) VALUES (0, ?)", arguments: [ahead])
            }
            let early = try await forwarder.flush().value

            // Then: the entry stayed with its open claim: sent once, applied once
            #expect(early.delivered == 0)
            gate.open()
            let answer = try await update.value
            #expect(answer.origin == .remote && answer.value.text == "b")
            let late = try await forwarder.flush().value
            #expect(late.delivered == 0)
            #expect(server.requests.filter { $0.method == "PUT" }.count == 1)
            #expect(server.appliedWrites.count == 1)
            #expect(try await file.storage.outbox(OutboxQuery(selection: .all)).isEmpty)
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

    /// Message x stored synced on a SQLite file, the app's repository on one storage object, and
    /// a record-only repository with its forwarder on `sender`'s: the same object or a second one.
    struct SharedFile {
        let messages: OutboxMessages
        let storage: SQLiteStorage
        let other: Storage
        let writer: OutboxMessages
        let forwarder: Forwarder
        let server: StubServer

        init(server: StubServer, path: String, sender: Sender) async throws {
            server.resource("messages", objects: [["id": "x", "text": "a"]])
            // The default 60 s timeout: the update waits at the server while a test's steps run,
            // which took a loaded machine over 5 s
            let session = NetworkingSession(url: server.url)
            storage = try SQLiteStorage(path: path)
            other = sender == .replica ? try SQLiteStorage(path: path) : storage
            messages = OutboxMessages(store: session, storage: storage)
            _ = try await messages.readAll().value
            writer = OutboxMessages(store: session, storage: other, strategy: recordOnly)
            forwarder = Forwarder(for: writer, configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0))
            self.server = server
        }

        /// Starts the app's remote-first update of x to "b" and returns once its PUT is at the
        /// server, its answer held until the returned gate opens (however slow the machine).
        func updateHeldAtServer() async -> (StubGate, Task<Sourced<Message>, any Error>) {
            let gate = StubGate()
            server.inject(.hold(gate), pathPrefix: "/messages/x")
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.put, "/messages/:id") { _ in signal.yield() }
            let messages = self.messages
            let update = Task { try await messages.update(Message(id: "x", text: "b")).value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            return (gate, update)
        }
    }
}
