import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A `409` to a resend of an entry under its key is "the key's first request is still being
/// processed" for ``ForwarderConfiguration/keyInFlightWindow``: retried under the same key, never
/// resolved as a conflict, however many resends it takes; after the window it is a conflict, and
/// a `409` to a first send is one at once.
@Suite struct KeyInFlightWindowTests {
    /// A forwarder on the fixture's manual clock whose requests time out after 300 ms.
    static func forwarder(_ writes: OutboxMessages, _ fixture: OutboxFixture, window: Duration? = nil) -> Forwarder {
        Forwarder(
            for: writes,
            configuration: ForwarderConfiguration(
                baseDelay: .seconds(1), jitter: 0, requestTimeout: .milliseconds(300), keyInFlightWindow: window,
                clock: fixture.clock))
    }

    @Test(
        "a 409 to resends of a create goes again under its key for the whole window, never reading the temporary id",
        arguments: StoreKind.allCases)
    func resendsWithinWindow(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(300)) { fixture in
            // Given: a server that assigns ids and answers 409 to a key still being processed, and
            // an offline create whose first POST the server applies but answers after 2 s
            fixture.server.assignIDs(startingAt: 1, for: "messages")
            fixture.server.setConflictsWhileProcessing(true, for: "messages")
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.create(Message(id: "tmp-1", text: "a")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            let forwarder = Self.forwarder(writes, fixture)
            fixture.server.inject(.delay(.seconds(2)), pathPrefix: "/messages")
            #expect(try await forwarder.flush().value.retrying == 1)

            // When: it goes again seven times while the server still processes the first
            for _ in 0..<7 {
                let resent = try await forwarder.flush().value
                #expect(resent.retrying == 1 && resent.conflicts == 0 && resent.rejected.isEmpty)
            }

            // Then: every resend carried the key, and nothing read the temporary id
            #expect(fixture.server.keysInProcessing == [key])
            #expect(!fixture.server.requests.contains { $0.path.hasPrefix("/messages/tmp-1") })
            #expect(try await fixture.outbox().map(\.idempotencyKey) == [key])

            // When: the first request is answered, and the entry goes again
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
            let replayed = try await forwarder.flush().value

            // Then: the answer under the key is stored; one message, made once
            #expect(replayed.delivered == 1 && replayed.conflicts == 0)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            #expect(try await fixture.stored("1")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "once the window has passed, a 409 to a resend goes to conflict resolution", arguments: StoreKind.allCases)
    func resendAfterWindow(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "X"]], timeout: .milliseconds(300)) {
            fixture in
            // Given: an offline edit of x whose first PUT the server applies but answers after 2 s,
            // and whose first resend meets a 409 (the key in flight)
            fixture.server.setConflictsWhileProcessing(true, for: "messages")
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await fixture.repository().readAll().value
            _ = try await writes.update(Message(id: "x", text: "b")).value
            let forwarder = Self.forwarder(writes, fixture, window: .seconds(30))
            fixture.server.inject(.delay(.seconds(2)), pathPrefix: "/messages")
            #expect(try await forwarder.flush().value.retrying == 1)
            let inFlight = try await forwarder.flush().value
            #expect(inFlight.retrying == 1 && inFlight.conflicts == 0)
            #expect(!fixture.server.requests.contains { $0.method == "GET" && $0.path == "/messages/x" })

            // When: the window passes, and a resend still meets a 409
            fixture.clock.advance(by: .seconds(31))
            let resolved = try await forwarder.flush().value

            // Then: it is resolved as a conflict: the server's version is read, and it holds the
            // edit (the first PUT was applied), so the entry is delivered
            #expect(fixture.server.requests.contains { $0.method == "GET" && $0.path == "/messages/x" })
            #expect(resolved.retrying == 0 && resolved.delivered == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("x")?["text"] == "b")
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
        }
    }

    @Test("a 409 to a first send is a conflict at once", arguments: StoreKind.allCases)
    func firstSendConflict(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "X"]]) { fixture in
            // Given: an offline edit of x
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await fixture.repository().readAll().value
            _ = try await writes.update(Message(id: "x", text: "b")).value

            // When: its first PUT is answered 409
            fixture.server.inject(.status(409), times: 1)
            let report = try await Self.forwarder(writes, fixture).flush().value

            // Then: the conflict policy (server wins) decides at once
            #expect(report.conflicts == 1 && report.retrying == 0)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("x")?.object["text"] == "X")
        }
    }
}
