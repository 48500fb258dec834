import Depot
import DepotTesting
import Foundation
import Testing

/// A refresh under way that the app overtakes: a new sign-in or a logout made meanwhile wins over
/// the refresh's token; a cancelled request stops waiting for the refresh; a refresh that fails
/// because the network is down reports the network's error.
@Suite struct AuthenticationSupersedeTests {
    /// A refresh the test holds: it tells when it started, and returns `token` when released.
    struct HeldRefresh: Sendable {
        let started: AsyncStream<Void>
        private let startedContinuation: AsyncStream<Void>.Continuation
        private let released: AsyncStream<Void>
        private let releaseContinuation: AsyncStream<Void>.Continuation

        init() {
            (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
            (released, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        /// The refresh: returns `token` once released, whether or not it was cancelled meanwhile.
        func refresh(returning token: String) async -> String {
            startedContinuation.yield()
            for await _ in released { break }
            return token
        }

        /// Waits until the refresh started.
        func waitUntilStarted() async {
            for await _ in started { return }
        }

        func release() { releaseContinuation.finish() }
    }

    /// `/secure` answers 200 to `Bearer B`, and 401 to anything else (no `Authorization` included).
    func secureRoute(_ server: StubServer) {
        server.route(.get, "/secure") { request, _ in
            request.header("authorization") == "Bearer B" ? .json(["ok": true]) : .json(["error": "who?"], status: 401)
        }
    }

    @Test("a sign-in as B while a refresh is under way: the refresh's token never replaces B")
    func signInDuringRefresh() async throws {
        try await withStubServer { server in
            // Given: a request answered 401 whose refresh is held
            secureRoute(server)
            let held = HeldRefresh()
            let auth = AuthenticationInterceptor(token: "A") { _ in await held.refresh(returning: "A2") }
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            let waiting = Task { try await session.request(.get, "secure").value }
            await held.waitUntilStarted()

            // When: the app signs in as B, then the refresh ends with A's new token
            auth.update(credential: "B")
            held.release()
            let answer = try await waiting.value

            // Then: the waiting request went out as B, and B stays
            #expect(answer["ok"] == true)
            #expect(auth.credential == "B")
            server.clearRequests()
            _ = try await session.request(.get, "secure").value
            #expect(server.requests.map { $0.header("authorization") } == ["Bearer B"])
            #expect(auth.refreshCount == 1)
        }
    }

    @Test("a logout while a refresh is under way: the refresh's token never signs the app back in")
    func logoutDuringRefresh() async throws {
        try await withStubServer { server in
            // Given: a request answered 401 whose refresh is held
            secureRoute(server)
            let held = HeldRefresh()
            let auth = AuthenticationInterceptor(token: "A") { _ in await held.refresh(returning: "A2") }
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            let waiting = Task { try await session.request(.get, "secure").value }
            await held.waitUntilStarted()

            // When: the app logs out, then the refresh ends with A's new token
            auth.update(credential: nil)
            held.release()
            await #expect { try await waiting.value } throws: { ($0 as? DepotError)?.status == 401 }

            // Then: no credential, and later requests go out without one (a 401 goes to the caller)
            #expect(auth.credential == nil)
            server.clearRequests()
            await #expect { try await session.request(.get, "secure").value } throws: {
                ($0 as? DepotError)?.status == 401
            }
            #expect(server.requests.map { $0.header("authorization") } == [nil])
            #expect(auth.refreshCount == 1)
        }
    }

    @Test("a cancelled request waiting on a token refresh stops waiting at once, with .cancelled")
    func cancelledWhileWaitingForRefresh() async throws {
        try await withStubServer { server in
            // Given: no token yet, so the request waits for a refresh that is held
            secureRoute(server)
            let held = HeldRefresh()
            let auth = AuthenticationInterceptor(token: nil) { _ in await held.refresh(returning: "B") }
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(interceptors: [auth]))
            let waiting = Task { try await session.send(NetworkRequest(method: .get, path: "secure")) }
            await held.waitUntilStarted()

            // When: the request is cancelled while the refresh is still under way
            waiting.cancel()
            let outcome = try await within(.seconds(60)) { () -> DepotError? in
                do {
                    _ = try await waiting.value
                    return nil
                } catch {
                    return error as? DepotError
                }
            }
            held.release()

            // Then: it ended before the refresh did, cancelled, and nothing was sent
            let error = try #require(outcome, "the cancelled request kept waiting for the refresh")
            #expect(error?.code == .cancelled)
            #expect(server.requests.isEmpty)
        }
    }

    @Test(
        "a refresh that fails because the network is down reports the network's error, not .authentication",
        arguments: ["refused", "timeout"])
    func refreshFailsForTransportReason(failure: String) async throws {
        try await withStubServer { server in
            // Given: the token endpoint is unreachable (refused) or does not answer in time
            secureRoute(server)
            server.route(.post, "/token", response: .json(["token": "B"], delay: .seconds(2)))
            let tokens = NetworkingSession(
                url: server.url,
                configuration: SessionConfiguration(timeout: .milliseconds(300), retryPolicy: .none))
            // A window no load outlasts: "the next request within the window" is the contract
            // asserted, not how fast a loaded machine reaches it (a 1 s window saw a second refresh).
            let auth = AuthenticationInterceptor(token: nil, failureWindow: .seconds(3600)) { _ in
                let answer = try await tokens.request(.post, "token").value
                return try #require(answer["token"]?.stringValue)
            }
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            if failure == "refused" { try await server.goOffline() }

            // When / Then: the request fails with the refresh's own transport error
            let expected: DepotError.Code = failure == "refused" ? .transport : .timeout
            await #expect { try await session.request(.get, "secure").value } throws: {
                ($0 as? DepotError)?.code == expected
            }
            // and so does the next one within the failure window, without a second refresh
            await #expect { try await session.request(.get, "secure").value } throws: {
                ($0 as? DepotError)?.code == expected
            }
            #expect(auth.refreshCount == 1)
        }
    }
}
