import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write's entry is claimed in the transaction that records it: no running
/// forwarder (of the same storage object, or of a second storage object on the same SQLite file)
/// can take it before the write's own send, which would answer the caller `.local` for a write
/// the server has.
@Suite struct RemoteFirstRecordingClaimTests {
    @Test(
        "a running forwarder never takes a remote-first write's entry: every update answers .remote, sent once, by the caller",
        arguments: RemoteFirstClaimTests.Sender.allCases)
    func forwarderNeverTakesRemoteFirstEntry(sender: RemoteFirstClaimTests.Sender) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: message x stored synced, and a forwarder polling every millisecond on the
            // same storage object (or on a second one on the same file)
            server.resource("messages", objects: [["id": "x", "text": "0"]])
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(5)))
            let storage = try SQLiteStorage(path: directory.path("shared.sqlite"))
            let other: Storage =
                sender == .replica ? try SQLiteStorage(path: directory.path("shared.sqlite")) : storage
            let messages = OutboxMessages(store: session, storage: storage)
            _ = try await messages.readAll().value
            let forwarder = Forwarder(
                for: OutboxMessages(store: session, storage: other),
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0, pollInterval: .milliseconds(1))
            )
            let delivered = LockedCounter()
            let events = forwarder.events
            let watcher = Task {
                for await event in events { if case .delivered = event { _ = delivered.increment() } }
            }
            defer { watcher.cancel() }
            forwarder.start()
            server.clearAppliedWrites()

            // When: the app makes many remote-first updates in a row
            var origins: [Origin] = []
            let count = 60
            for number in 1...count {
                let answer = try await messages.update(Message(id: "x", text: "\(number)")).value
                origins.append(answer.origin)
            }
            await forwarder.stop()

            // Then: every update answered from the server, each applied once, none by the forwarder
            #expect(origins.allSatisfy { $0 == .remote })
            let applied = server.appliedWrites
            #expect(applied.count == count)
            #expect(Set(applied.compactMap(\.idempotencyKey)).count == count)
            #expect(delivered.value == 0)
            #expect(server.objects(in: "messages").first?["text"] == .string("\(count)"))
            #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
        }
    }

    @Test(
        "a remote-first update behind an earlier write a forwarder is sending waits for it, then goes itself: .remote, in order",
        arguments: RemoteFirstClaimTests.Sender.allCases)
    func remoteFirstWaitsForForwarderThenSendsItself(sender: RemoteFirstClaimTests.Sender) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: x stored synced, an offline edit "b" of it queued, and a forwarder polling
            // every millisecond (same storage object, or a second one on the same file) that is
            // sending "b" (its answer held back 300 ms)
            server.resource("messages", objects: [["id": "x", "text": "a"]])
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(5)))
            let storage = try SQLiteStorage(path: directory.path("shared.sqlite"))
            let other: Storage =
                sender == .replica ? try SQLiteStorage(path: directory.path("shared.sqlite")) : storage
            let messages = OutboxMessages(store: session, storage: storage)
            _ = try await messages.readAll().value
            _ = try await OutboxMessages(store: session, storage: storage, strategy: recordOnly)
                .update(Message(id: "x", text: "b")).value
            server.inject(.delay(.milliseconds(300)), pathPrefix: "/messages/x")
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.put, "/messages/:id") { _ in signal.yield() }
            let forwarder = Forwarder(
                for: OutboxMessages(store: session, storage: other, strategy: recordOnly),
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0, pollInterval: .milliseconds(1))
            )
            let delivered = LockedCounter()
            let events = forwarder.events
            let watcher = Task {
                for await event in events { if case .delivered = event { _ = delivered.increment() } }
            }
            defer { watcher.cancel() }
            forwarder.start()
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()

            // When: the app updates x to "c", remote-first, while "b" is out
            let answer = try await messages.update(Message(id: "x", text: "c")).value
            await forwarder.stop()

            // Then: "c" waited for "b", then went by the call itself: answered from the server,
            // the forwarder sent "b" alone, the server ends with "c"
            #expect(answer.origin == .remote && answer.value.text == "c")
            #expect(delivered.value == 1)
            #expect(server.requests.filter { $0.method == "PUT" }.compactMap { $0.json?["text"] } == ["b", "c"])
            #expect(server.objects(in: "messages").first?["text"] == "c")
            #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
        }
    }

    @Test("a remote write that keeps no local copy records no entry: sent once, by the caller alone")
    func remoteWriteWithoutLocalCopyRecordsNoEntry() async throws {
        try await withOutboxFixture(objects: [["id": "x", "text": "a"]]) { fixture in
            // Given: x stored synced, a forwarder running on the storage, and a rule that sends
            // updates to the server without keeping the store in step
            _ = try await fixture.repository().readAll().value
            let forwarder = Forwarder(
                for: fixture.repository(),
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0, pollInterval: .milliseconds(1))
            )
            forwarder.start()
            let direct = fixture.repository(
                strategy: .remoteFirst.with(.update, Rule(target: .remote, fallback: .local, synchronize: false)))
            fixture.server.clearAppliedWrites()

            // When
            let answer = try await direct.update(Message(id: "x", text: "b")).value
            await forwarder.stop()

            // Then: the server has it once; the store kept no copy and no entry, so no other
            // sender had anything to send
            #expect(answer.origin == .remote)
            #expect(fixture.server.appliedWrites.count == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("x")?.object["text"] == "a")
        }
    }
}
