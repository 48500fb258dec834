import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write to an entity whose earlier writes still wait in the outbox is recorded
/// behind them, never dropped.
@Suite struct RemoteWriteBehindOutboxTests {
    @Test(
        "a remote-first update behind a refused write is queued behind it, kept locally, and delivered after it",
        arguments: StoreKind.allCases)
    func queuedBehindRefusedWrite(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an update made offline, refused with a 422 when forwarded, and moved aside
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            try await fixture.server.goOffline()
            #expect(try await messages.update(Message(id: "1", text: "first")).value.origin == .local)
            try await fixture.server.goOnline()
            fixture.server.inject(.status(422), times: 1, pathPrefix: "/messages")
            let forwarder = fixture.forwarder(messages)
            let refusal = try await forwarder.flush().value
            let refused = try #require(refusal.rejected.first)
            #expect(refusal.rejected.count == 1)
            fixture.server.clearAppliedWrites()

            // When: the server is up, and the app edits the same entity remote-first
            let answer = try await messages.update(Message(id: "1", text: "second")).value

            // Then: queued behind the refused write, nothing sent, the edit kept locally
            #expect(answer.origin == .local)
            #expect(answer.fallbackError?.code == .queuedBehindEarlierWrites)
            #expect(answer.value.text == "second")
            #expect(fixture.applied("1").isEmpty)
            #expect(try await fixture.stored("1")?.object["text"] == "second")
            #expect(try await fixture.stored("1")?.syncState == .updated)
            let queued = try await fixture.outbox()
            #expect(queued.map(\.entityID) == ["1", "1"])
            #expect(queued.first?.isRejected == true && queued.last?.isRejected == false)

            // When: the refused write is put back in line and the outbox flushed
            #expect(try await forwarder.retry(refused).value)
            let report = try await forwarder.flush().value

            // Then: both delivered, in the order they were made
            #expect(report.delivered == 2 && report.rejected.isEmpty)
            let order = [refused.idempotencyKey, queued.last?.idempotencyKey]
            #expect(fixture.applied("1").map(\.idempotencyKey) == order)
            #expect(fixture.serverObject("1")?["text"] == "second")
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("1")?.syncState == .synced)
        }
    }

    @Test(
        "a remote-only update behind a refused write is refused with a typed error, nothing stored",
        arguments: StoreKind.allCases)
    func remoteOnlyBehindRefusedWrite(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: a refused write moved aside
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            try await fixture.server.goOffline()
            _ = try await messages.update(Message(id: "1", text: "first")).value
            try await fixture.server.goOnline()
            fixture.server.inject(.status(422), times: 1, pathPrefix: "/messages")
            _ = try await fixture.forwarder(messages).flush().value

            // When: a rule without a fallback
            let remoteOnly = fixture.repository(strategy: Strategy(Rule(target: .remote)))
            let error = await #expect(throws: DepotError.self) {
                try await remoteOnly.update(Message(id: "1", text: "second")).value
            }

            // Then
            #expect(error?.code == .queuedBehindEarlierWrites)
            #expect(try await fixture.stored("1")?.object["text"] == "first")
            #expect(try await fixture.outbox().count == 1)
        }
    }
}
