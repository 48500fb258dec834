import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A server that answers 409 to a resend whose first request under the same `Idempotency-Key` is
/// still being processed (the IETF idempotency-key draft, Stripe): the resend waits and goes again
/// under that key; it is not a conflict to resolve.
@Suite struct KeyInFlightTests {
    /// The conflict policies that used to resolve the 409.
    enum Policy: String, CaseIterable, Sendable, CustomStringConvertible {
        case serverWins, clientWins
        var description: String { rawValue }
        var policy: ConflictPolicy { self == .serverWins ? .serverWins : .clientWins }
    }

    @Test(
        "a 409 to a resend whose first request is still in flight is retried under the same key",
        arguments: zip(StoreKind.allCases, Policy.allCases))
    func conflictWhileFirstRequestInFlight(kind: StoreKind, policy: Policy) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(300)) { fixture in
            // Given: a server that assigns ids and answers 409 to a key still being processed, and
            // an offline create waiting in the outbox
            fixture.server.assignIDs(startingAt: 1, for: "messages")
            fixture.server.setConflictsWhileProcessing(true, for: "messages")
            let writes = fixture.repository(strategy: recordOnly, conflictPolicy: policy.policy)
            _ = try await writes.create(Message(id: "tmp-1", text: "a")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            let forwarder = Forwarder(
                for: writes,
                configuration: ForwarderConfiguration(
                    baseDelay: .seconds(1), jitter: 0, requestTimeout: .milliseconds(300), clock: fixture.clock))

            // When: the first POST is applied but answered only after the client gave up, and the
            // resend goes while the server still processes the first
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")
            let timedOut = try await forwarder.flush().value
            #expect(timedOut.retrying == 1)
            #expect(fixture.server.keysInProcessing == [key])
            let resent = try await forwarder.flush().value

            // Then: the 409 waits for a retry under the same key; a read of the temporary id (it
            // finds nothing) resolved no conflict
            #expect(resent.retrying == 1 && resent.conflicts == 0 && resent.rejected.isEmpty)
            #expect(try await fixture.outbox().map(\.idempotencyKey) == [key])
            #expect(try await fixture.stored("tmp-1") != nil)

            // When: the first request is answered, and the entry goes again
            gate.open()
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
            let replayed = try await forwarder.flush().value

            // Then: the server's answer under the key is stored; one ticket, made once
            #expect(replayed.delivered == 1 && replayed.conflicts == 0)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            #expect(try await fixture.stored("tmp-1") == nil)
            let record = try #require(try await fixture.stored("1"))
            #expect(record.syncState == .synced && record.object["text"] == "a")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
