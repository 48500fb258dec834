import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch is an identity: its key is written on its entries before the send, and they go again
/// only in that batch, under that key, until its answer is known.
@Suite struct BatchIdentityTests {
    @Test(
        "a batch whose answer was lost goes again only as that batch, under its key, and is applied once",
        arguments: StoreKind.allCases)
    func lostBatchAnswer(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(500)) { fixture in
            // Given: two local creates
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.create(Message(id: "a", text: "A")).value
            _ = try await recording.create(Message(id: "b", text: "B")).value
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let batches = { fixture.server.requests.filter { $0.path == "/messages/collection" } }
            let ids = { (request: RecordedRequest) in request.json?.arrayValue?.map { $0["id"] } ?? [] }

            // When: the server applies the batch, but answers after the client gave up
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/collection")
            let lost = try await sync.synchronize().value
            #expect(!lost.errors.isEmpty)
            let key = try #require(batches().first?.header("Idempotency-Key"))

            // ... and the forwarder and a remote-first edit try those entities meanwhile
            let flushed = try await fixture.forwarder(recording).flush().value
            let edited = try await fixture.repository().update(Message(id: "a", text: "A2")).value

            // Then: neither sent them on their own
            #expect(flushed.delivered == 0)
            #expect(edited.origin == .local && edited.fallbackError?.code == .queuedBehindEarlierWrites)
            #expect(!fixture.server.requests.contains { $0.method != "GET" && $0.path != "/messages/collection" })
            gate.open()
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })

            // When: a third create, and the next synchronize()
            _ = try await recording.create(Message(id: "c", text: "C")).value
            let cKey = try #require(try await fixture.outbox().first { $0.entityID == "c" }?.idempotencyKey)
            let again = try await sync.synchronize().value

            // Then: the batch went again under its key with its entries, then the rest in batches
            // of their own (a batch of one under a key of its own, never its entry's)
            #expect(again.errors.isEmpty)
            let sent = batches()
            #expect(sent.count == 3)
            #expect(sent.dropFirst().first?.header("Idempotency-Key") == key)
            #expect(sent.dropFirst().first.map(ids) == [.string("a"), .string("b")])
            #expect(sent.dropFirst().first?.json == sent.first?.json)  // the same request
            #expect(sent.last.map(ids) == [.string("a"), .string("c")])
            #expect(sent.last?.header("Idempotency-Key") != key && sent.last?.header("Idempotency-Key") != cKey)
            // Each write applied once: the batch's by its key (replayed), then the edit and c
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 2)
            #expect(fixture.server.appliedWrites.count == 4 && fixture.server.replayedWrites == 1)
            #expect(fixture.serverObject("a")?["text"] == "A2")
            #expect(fixture.server.objects(in: "messages").count == 3)
            #expect(try await fixture.outbox().isEmpty)
            for id in ["a", "b", "c"] { #expect(try await fixture.stored(id)?.syncState == .synced) }
        }
    }

    @Test(
        "a batch in flight keeps its entries' leases: renewed on the store's clock until its answer",
        arguments: StoreKind.allCases)
    func leasesRenewedInFlight(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .seconds(60)) { fixture in
            // Given: two local creates, and a forwarder (of another collection) that gives the
            // storage's senders a 3 s lease (renewed every second)
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.create(Message(id: "a", text: "A")).value
            _ = try await recording.create(Message(id: "b", text: "B")).value
            fixture.server.resource("others")
            let publisher = Forwarder(
                for: SyncMessages(
                    store: fixture.session, storage: fixture.storage, path: "others",
                    synchronization: SynchronizationConfiguration()),
                configuration: ForwarderConfiguration(
                    requestTimeout: .seconds(60), leaseDuration: TestTimeScale.scaled(.seconds(3))))
            publisher.start()
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let rival = Forwarder(
                for: recording,
                configuration: ForwarderConfiguration(jitter: 0, leaseDuration: TestTimeScale.scaled(.seconds(3))))
            // The server holds the batch's answer until the rival has tried.
            try await fixture.openConnection()
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/collection")

            // When: the batch is out past the end of its first lease
            let synchronizing = Task { try await sync.synchronize().value }
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.path == "/messages/collection" } })
            let granted = try #require(try await fixture.outbox().map { $0.lease?.expiry ?? .distantFuture }.min())
            var renewed = false
            for _ in 0..<(800 * TestTimeScale.factor) where !renewed {
                let expiries = try await fixture.outbox().map { $0.lease?.expiry ?? .distantPast }
                renewed = Date() > granted && expiries.count == 2 && expiries.allSatisfy { $0 > granted }
                if !renewed { try await Task.sleep(for: .milliseconds(10)) }  // polling, bounded
            }
            // ... and another forwarder tries the same entries
            let rivalDelivered = try await rival.flush().value.delivered
            gate.open()
            let report = try await synchronizing.value
            await publisher.stop()

            // Then: the leases were renewed and held: the rival sent nothing, the batch went once,
            // its answer stored
            #expect(renewed)
            #expect(rivalDelivered == 0)
            #expect(report.errors.isEmpty && report.pushed == 2)
            #expect(fixture.server.requests.filter { $0.path == "/messages/collection" }.count == 1)
            #expect(!fixture.server.requests.contains { $0.method == "POST" && $0.path == "/messages" })
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
