import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A batch of one record is a batch: it goes under a batch key of its own, never its entry's key,
/// so the entry's own request and the batch's are never answered with each other's stored reply.
@Suite struct BatchOfOneKeyTests {
    @Test(
        "a one-record batch does not reuse its entry's key; its lost answer is applied once",
        arguments: StoreKind.allCases)
    func batchOfOneHasItsOwnKey(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(500)) { fixture in
            // Given: one local create
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.create(Message(id: "a", text: "A")).value
            let entryKey = try #require(try await fixture.outbox().first?.idempotencyKey)
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let batches = { fixture.server.requests.filter { $0.path == "/messages/collection" } }

            // When: the server applies its batch, but answers after the client gave up; then the
            // forwarder flushes and the app synchronizes again
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/collection")
            _ = try await sync.synchronize().value
            let batchKey = try #require(batches().first?.header("Idempotency-Key"))
            let flushed = try await fixture.forwarder(recording).flush().value
            gate.open()
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
            let again = try await sync.synchronize().value

            // Then: the batch of one went under a key that is not its entry's, twice (the same
            // request), never as the entry's own POST; applied once, nothing refused
            #expect(batchKey != entryKey)
            #expect(batches().count == 2 && batches().allSatisfy { $0.header("Idempotency-Key") == batchKey })
            #expect(!fixture.server.requests.contains { $0.header("Idempotency-Key") == entryKey })
            #expect(flushed.delivered == 0 && again.errors.isEmpty)
            #expect(fixture.server.appliedWrites.count == 1 && fixture.server.replayedWrites == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("a")?.syncState == .synced)
        }
    }
}
