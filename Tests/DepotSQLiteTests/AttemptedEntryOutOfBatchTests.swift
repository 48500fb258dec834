import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// An entry sent on its own under its key, whose answer is not known, goes again only under that
/// key: never in a batch under the batch's.
@Suite struct AttemptedEntryOutOfBatchTests {
    @Test(
        "a create sent on its own whose answer was lost is not sent again in a batch (one object, not two)",
        arguments: StoreKind.allCases)
    func attemptedCreateStaysOutOfBatch(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(300)) { fixture in
            // Given: a server that assigns ids, and a remote-first create it applies but answers
            // after the client gave up: queued under its key
            fixture.server.assignIDs(startingAt: 1, for: "messages")
            fixture.server.setConflictsWhileProcessing(true, for: "messages")
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")
            let created = try await fixture.repository().create(Message(id: "tmp-1", text: "a")).value
            #expect(created.origin == .local && created.fallbackError?.code == .timeout)
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            gate.open()
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })

            // When: synchronize(), whose server has a batch route
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let report = try await sync.synchronize().value

            // Then: sent on its own under its key (the server replays its answer), never in a batch
            #expect(report.errors.isEmpty)
            #expect(!fixture.server.requests.contains { $0.path == "/messages/collection" })
            #expect(fixture.server.requests.filter { $0.header("Idempotency-Key") == key }.count == 2)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("tmp-1") == nil)
            #expect(try await fixture.stored("1")?.syncState == .synced)
        }
    }
}
