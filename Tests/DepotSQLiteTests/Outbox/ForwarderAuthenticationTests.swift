import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ForwarderAuthenticationTests {
    @Test("the forwarder's 401 goes through the shared refresh, and a failed refresh keeps the write for a retry")
    func forwarderRefreshes() async throws {
        try await withOutboxFixture { fixture in
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "new", text: "offline")).value
            let answers = LockedValue<[StubResponse]>([
                .json(["error": "revoked"], status: 400), .json(["token": "fresh"]),
            ])
            fixture.server.route(.post, "/token") { _, _ in answers.withLock { $0.removeFirst() } }
            let (forwarder, auth) = refreshingForwarder(fixture, failureWindow: .zero)
            // The first send meets a 401 and a refresh that fails: the entry waits, it is not refused.
            fixture.server.inject(.status(401), times: 1, pathPrefix: "/messages")
            let first = try await forwarder.flush().value
            #expect(first.rejected.isEmpty && first.retrying == 1)
            #expect(first.errors.first?.code == .authentication)
            // The next send meets a 401 again; this refresh works and the write is delivered once.
            fixture.server.inject(.status(401), times: 1, pathPrefix: "/messages")
            fixture.clock.advance(by: .seconds(5))
            let second = try await forwarder.flush().value
            await forwarder.stop()
            #expect(second.delivered == 1 && second.rejected.isEmpty)
            #expect(auth.refreshCount == 2 && auth.credential == "fresh")
            #expect(fixture.server.requests.filter { $0.path == "/token" }.count == 2)
            #expect(fixture.serverObject("new")?["text"] == "offline")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("a send its interceptor could not adapt (the refresh failed) never left: no attempt is counted")
    func unadaptedSendIsNoAttempt() async throws {
        try await withOutboxFixture { fixture in
            // Given: a queued create, and a token server that is down
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "new", text: "offline")).value
            fixture.server.route(.post, "/token") { _, _ in .json(["error": "down"], status: 503) }
            // A failed refresh fails every request of the next hour at once, before it is sent.
            let forwarder = refreshingForwarder(fixture, failureWindow: .seconds(3600)).forwarder

            // When: the first send is answered 401 and the refresh fails; two more flushes follow
            fixture.server.inject(.status(401), times: 1, pathPrefix: "/messages")
            let first = try await forwarder.flush().value
            #expect(first.retrying == 1 && first.rejected.isEmpty)
            for _ in 0..<2 {
                fixture.clock.advance(by: .seconds(5))
                let later = try await forwarder.flush().value
                #expect(later.retrying == 1 && later.delivered == 0)
            }
            await forwarder.stop()

            // Then: one request reached the server, answered 401 (not applied), and the two
            // sends that never left count no attempt: the entry is as good as unsent
            #expect(fixture.server.requests.filter { $0.path == "/messages" }.count == 1)
            #expect(try await fixture.outbox().map(\.attempts) == [0])
        }
    }

    @Test("a create answered 401 was not applied: the draft's delete folds into it and nothing goes")
    func unauthorizedCreateFoldsIntoDelete() async throws {
        try await withOutboxFixture { fixture in
            // Given: a queued draft whose send is answered 401, with a token server that is down
            let drafts = fixture.repository(strategy: recordOnly)
            _ = try await drafts.create(Message(id: "draft", text: "offline")).value
            fixture.server.route(.post, "/token") { _, _ in .json(["error": "down"], status: 503) }
            let forwarder = refreshingForwarder(fixture, failureWindow: .zero).forwarder
            fixture.server.inject(.status(401), times: 1, pathPrefix: "/messages")
            let first = try await forwarder.flush().value
            #expect(first.retrying == 1)

            // When: the user deletes the draft
            _ = try await drafts.delete(id: "draft").value

            // Then: the server refused the create, so create and delete leave nothing to send
            #expect(try await fixture.outbox().isEmpty)
            fixture.clock.advance(by: .seconds(5))
            let second = try await forwarder.flush().value
            await forwarder.stop()
            #expect(second.delivered == 0 && second.retrying == 0)
            #expect(fixture.server.requests.filter { $0.path.hasPrefix("/messages") }.map(\.method) == ["POST"])
            #expect(fixture.serverObject("draft") == nil)
        }
    }

    /// A forwarder for `fixture`'s messages whose session's `AuthenticationInterceptor` holds the
    /// token "expired" and refreshes it with `POST /token` (as the server's route answers, no
    /// retry), failing requests at once for `failureWindow` after a failed refresh.
    private func refreshingForwarder(
        _ fixture: OutboxFixture, failureWindow: Duration
    ) -> (forwarder: Forwarder, auth: AuthenticationInterceptor<String>) {
        let tokens = NetworkingSession(url: fixture.server.url, configuration: SessionConfiguration(retryPolicy: .none))
        let auth = AuthenticationInterceptor(token: "expired", failureWindow: failureWindow) { _ in
            let answer = try await tokens.request(.post, "token").value
            guard let token = answer["token"]?.stringValue else { throw DepotError(.decoding, "no token") }
            return token
        }
        let session = NetworkingSession(
            url: fixture.server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
        let messages = OutboxMessages(store: session, storage: fixture.storage, strategy: recordOnly)
        return (fixture.forwarder(messages), auth)
    }
}
