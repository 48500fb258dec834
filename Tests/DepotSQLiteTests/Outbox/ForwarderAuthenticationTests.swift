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
            let tokens = NetworkingSession(url: fixture.server.url)
            let auth = AuthenticationInterceptor(token: "expired", failureWindow: .zero) { _ in
                let answer = try await tokens.request(.post, "token").value
                guard let token = answer["token"]?.stringValue else { throw DepotError(.decoding, "no token") }
                return token
            }
            let session = NetworkingSession(
                url: fixture.server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            let messages = OutboxMessages(store: session, storage: fixture.storage, strategy: recordOnly)
            let forwarder = fixture.forwarder(messages)
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
}
