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

    /// Answers `method` `path` as a server that holds a key in flight until `held` turns false:
    /// the first request is applied and answered with `answer` after the client gave up (1 s); a
    /// resend is answered 409 while the key is held, then with `answer`.
    static func holdKeyInFlight(
        _ fixture: OutboxFixture, _ method: NetworkRequest.Method, _ path: String, answer: StubResponse,
        held: LockedValue<Bool>
    ) {
        let first = LockedValue(true)
        fixture.server.route(method, path) { _, _ in
            if first.withLock({ isFirst in
                defer { isFirst = false }; return isFirst
            }) {
                var slow = answer
                slow.delay = .seconds(1)
                return slow
            }
            guard held.withLock({ $0 }) else { return answer }
            return .json(["error": "a request with this key is in flight"], status: 409)
        }
    }

    @Test(
        "a 409 to resends of a create goes again under its key for the whole window, never resolved by reading the temporary id",
        arguments: StoreKind.allCases)
    func resendsWithinWindow(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(300)) { fixture in
            // Given: a server that makes ids and answers 409 to a key it still processes, and an
            // offline create whose first POST it answers only after the client gave up
            let held = LockedValue(true)
            Self.holdKeyInFlight(
                fixture, .post, "/messages", answer: .json(["id": "1", "text": "a"], status: 201), held: held)
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.create(Message(id: "tmp-1", text: "a")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            let forwarder = Self.forwarder(writes, fixture)
            #expect(try await forwarder.flush().value.retrying == 1)

            // When: it goes again seven times while the server still processes the first
            for _ in 0..<7 {
                let resent = try await forwarder.flush().value
                #expect(resent.retrying == 1 && resent.conflicts == 0 && resent.rejected.isEmpty)
            }

            // Then: every resend carried the key; a read of the temporary id (which finds nothing)
            // resolved nothing, and the local create is kept
            #expect(try await fixture.outbox().map(\.idempotencyKey) == [key])
            #expect(try await fixture.stored("tmp-1") != nil)

            // When: the first request is answered, and the entry goes again
            held.withLock { $0 = false }
            let replayed = try await forwarder.flush().value

            // Then: the answer under the key is stored; every POST carried the key
            #expect(replayed.delivered == 1 && replayed.conflicts == 0)
            let posts = fixture.server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 9 && posts.allSatisfy { $0.header("Idempotency-Key") == key })
            #expect(try await fixture.stored("1")?.syncState == .synced)
            #expect(try await fixture.stored("tmp-1") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a server that ignores keys answers a resend of a create it applied with 409: delivered at once, not held for the window",
        arguments: StoreKind.allCases)
    func ignoredKeyResendDelivered(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: TestTimeScale.scaled(.milliseconds(300))) { fixture in
            // Given: a server that ignores idempotency keys: it applies the first POST of x and
            // answers only after the client gave up, then answers 409 (x exists) to every resend
            let first = LockedValue(true)
            fixture.server.route(.post, "/messages") { _, _ in
                if first.withLock({ isFirst in
                    defer { isFirst = false }; return isFirst
                }) {
                    var slow = StubResponse.json(["id": "x", "text": "a"], status: 201)
                    slow.delay = TestTimeScale.scaled(.seconds(1))
                    return slow
                }
                return .json(["error": "x exists"], status: 409)
            }
            fixture.server.route(.get, "/messages/x") { _, _ in .json(["id": "x", "text": "a"]) }
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.create(Message(id: "x", text: "a")).value
            let forwarder = Self.forwarder(writes, fixture)
            #expect(try await forwarder.flush().value.retrying == 1)

            // When: the create goes again, and the server answers 409
            let resent = try await forwarder.flush().value

            // Then: the server's copy shows the create applied: delivered, not waiting a minute
            // for a key that is in flight nowhere
            #expect(resent.delivered == 1 && resent.conflicts == 0 && resent.retrying == 0)
            #expect(try await fixture.stored("x")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "once the window has passed, a 409 to a resend goes to conflict resolution", arguments: StoreKind.allCases)
    func resendAfterWindow(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "X"]], timeout: .milliseconds(300)) {
            fixture in
            // Given: an offline edit of x whose first PUT the server answers only after the client
            // gave up, and whose first resend meets a 409 (the key in flight)
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await fixture.repository().readAll().value
            _ = try await writes.update(Message(id: "x", text: "b")).value
            Self.holdKeyInFlight(
                fixture, .put, "/messages/x", answer: .json(["id": "x", "text": "b"]), held: LockedValue(true))
            let forwarder = Self.forwarder(writes, fixture, window: .seconds(30))
            #expect(try await forwarder.flush().value.retrying == 1)
            let inFlight = try await forwarder.flush().value
            #expect(inFlight.retrying == 1 && inFlight.conflicts == 0)

            // When: the window passes, and a resend still meets a 409
            fixture.clock.advance(by: .seconds(31))
            let resolved = try await forwarder.flush().value

            // Then: it is a conflict: the server's version is read, and the policy (server wins)
            // decides
            #expect(fixture.server.requests.contains { $0.method == "GET" && $0.path == "/messages/x" })
            #expect(resolved.conflicts == 1 && resolved.retrying == 0)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("x")?.object["text"] == "X")
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
