import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write whose answer comes after the client's timeout is sent again by the
/// session's retry policy under the same `Idempotency-Key`; a server still processing the first
/// request answers that resend 409. The caller is never told of a conflict: the write falls back
/// like a timeout, queued under its key, and the outbox gets the first request's answer later.
@Suite struct DirectKeyInFlightTests {
    /// The writes tried.
    enum Operation: String, CaseIterable, Sendable, CustomStringConvertible {
        case create, delete
        var description: String { rawValue }
    }

    @Test(
        "a 409 to a direct write's resend whose key is still in flight falls back, queued under its key",
        arguments: StoreKind.allCases, Operation.allCases)
    func directResendMeetsKeyInFlight(kind: StoreKind, operation: Operation) async throws {
        let objects: [JSONObject] = operation == .delete ? [["id": "x", "text": "X"]] : []
        try await withOutboxFixture(kind, objects: objects) { fixture in
            // Given: a session that times out after 300 ms and retries, and a server that answers
            // 409 to a key still being processed
            fixture.server.setConflictsWhileProcessing(true, for: "messages")
            let session = NetworkingSession(
                url: fixture.server.url,
                configuration: SessionConfiguration(
                    timeout: .milliseconds(300),
                    retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(20), jitter: 0)))
            let messages = OutboxMessages(store: session, storage: fixture.storage)
            if operation == .delete { _ = try await messages.readAll().value }

            // When: the write is applied but answered only once the test opens the gate, and the
            // session sends it again once, after its 0.3 s timeout
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")
            let (origin, fallbackError): (Origin, DepotError?)
            switch operation {
            case .create:
                let created = try await messages.create(Message(id: "x", text: "a")).value
                (origin, fallbackError) = (created.origin, created.fallbackError)
            case .delete:
                let deleted = try await messages.delete(id: "x").value
                (origin, fallbackError) = (deleted.origin, deleted.fallbackError)
            }

            // Then: no conflict; answered locally, queued under the key the server holds
            #expect(origin == .local)
            #expect(fallbackError?.code == .timeout)
            let queued = try await fixture.outbox()
            #expect(queued.count == 1)
            let key = try #require(queued.first?.idempotencyKey)
            #expect(fixture.server.requests.filter { $0.header("Idempotency-Key") == key }.count >= 2)

            // When: the first request is answered, and the outbox is flushed
            gate.open()
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
            let report = try await fixture.forwarder(messages).flush().value

            // Then: delivered under that key, applied once
            #expect(report.delivered == 1 && report.conflicts == 0 && report.rejected.isEmpty)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            #expect(try await fixture.outbox().isEmpty)
            switch operation {
            case .create:
                #expect(fixture.server.objects(in: "messages").count == 1)
                #expect(try await fixture.stored("x")?.syncState == .synced)
            case .delete:
                #expect(fixture.serverObject("x") == nil)
                #expect(try await fixture.stored("x") == nil)
            }
        }
    }
}
