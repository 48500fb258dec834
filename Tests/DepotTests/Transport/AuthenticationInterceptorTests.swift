import Depot
import DepotTesting
import Foundation
import Testing

/// One token refresh for all: concurrent 401s share one refresh and are replayed with the new
/// token; a failed refresh fails them all with one typed error.
@Suite struct AuthenticationInterceptorTests {
    /// `/secure` answers 200 to `Bearer fresh` and 401 to anything else; `/token` answers
    /// `tokenAnswer` after 100 ms, so a burst of 401s arrives while the refresh is under way.
    func withSecureServer(
        tokenAnswer: StubResponse,
        _ body: (StubServer, AuthenticationInterceptor<String>, NetworkingSession) async throws -> Void
    ) async throws {
        try await withStubServer { server in
            server.route(.get, "/secure") { request, _ in
                request.header("authorization") == "Bearer fresh"
                    ? .json(["ok": true]) : .json(["error": "token expired"], status: 401)
            }
            server.route(.post, "/token", response: tokenAnswer)
            let tokens = NetworkingSession(url: server.url, configuration: SessionConfiguration(retryPolicy: .none))
            // A long failure window: on a slow machine (ThreadSanitizer) a straggler's 401 may
            // come well after the failed refresh, and must still share it.
            let auth = AuthenticationInterceptor(token: "expired", failureWindow: .seconds(30)) { expired in
                #expect(expired == "expired")
                let answer = try await tokens.request(.post, "token").value
                guard let token = answer["token"]?.stringValue else {
                    throw DepotError(.decoding, "no token in \(answer)")
                }
                return token
            }
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            try await body(server, auth, session)
        }
    }

    @Test("20 concurrent requests on an expired token: exactly one refresh request, every request answered")
    func oneRefresh() async throws {
        try await withSecureServer(tokenAnswer: .json(["token": "fresh"], delay: .milliseconds(100))) {
            server, auth, session in
            let answers = try await withThrowingTaskGroup(of: JSON.self) { group in
                for _ in 0..<20 { group.addTask { try await session.request(.get, "secure").value } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 20 && answers.allSatisfy { $0["ok"] == true })
            #expect(server.requests.filter { $0.path == "/token" }.count == 1)
            #expect(auth.refreshCount == 1 && auth.credential == "fresh")
            // Each request was sent at most twice: once expired, once fresh.
            #expect(server.requests.filter { $0.path == "/secure" }.count <= 40)
            // Later requests go out with the fresh token at once.
            server.clearRequests()
            _ = try await session.request(.get, "secure").value
            #expect(server.requests.map(\.path) == ["/secure"])
        }
    }

    @Test("a refresh that fails fails all 20 requests with one typed error, after one refresh request")
    func failedRefresh() async throws {
        try await withSecureServer(
            tokenAnswer: .json(["error": "refresh token revoked"], status: 400, delay: .milliseconds(100))
        ) { server, auth, session in
            let errors = await withTaskGroup(of: DepotError?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await session.request(.get, "secure").value
                            return nil
                        } catch {
                            return error as? DepotError
                        }
                    }
                }
                return await group.reduce(into: [DepotError?]()) { $0.append($1) }
            }
            #expect(errors.count == 20)
            #expect(errors.allSatisfy { $0?.code == .authentication && $0?.status == 401 })
            #expect(server.requests.filter { $0.path == "/token" }.count == 1)
            #expect(auth.refreshCount == 1 && auth.credential == "expired")
            // A new sign-in: the next request goes out with the new token.
            auth.update(credential: "fresh")
            let answer = try await session.request(.get, "secure").value
            #expect(answer["ok"] == true)
        }
    }

    @Test(
        "a refresh answered 5xx, 408 or 429 fails the requests with that status error, which warrants a fallback, not .authentication",
        arguments: [503, 500, 429, 408])
    func refreshAnsweredComeBackLater(status: Int) async throws {
        try await withSecureServer(tokenAnswer: .json(["error": "busy"], status: status)) { server, auth, session in
            // When: a request meets the expired token, then another within the failure window
            var errors: [DepotError] = []
            for _ in 0..<2 {
                do {
                    _ = try await session.request(.get, "secure").value
                } catch let error as DepotError {
                    errors.append(error)
                }
            }

            // Then: both fail with the refresh's own status error, one a rule falls back after
            #expect(errors.count == 2)
            #expect(errors.allSatisfy { $0.code == .status && $0.status == status })
            #expect(errors.allSatisfy { $0.warrantsFallback(from: .remote) })
            #expect(server.requests.filter { $0.path == "/token" }.count == 1)
            #expect(auth.refreshCount == 1)
        }
    }

    @Test("no token at first: the first requests wait for one refresh before they are sent")
    func noTokenYet() async throws {
        try await withStubServer { server in
            server.route(.get, "/secure") { request, _ in
                request.header("authorization") == "Bearer first" ? .json(["ok": true]) : .json([:], status: 401)
            }
            let refreshes = LockedValue(0)
            let auth = AuthenticationInterceptor(token: nil) { expired in
                #expect(expired == nil)
                refreshes.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(50))
                return "first"
            }
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(interceptors: [auth]))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { _ = try await session.request(.get, "secure").value } }
                try await group.waitForAll()
            }
            #expect(refreshes.withLock { $0 } == 1)
            #expect(server.requests.count == 5)  // none sent before the token was there
        }
    }

    @Test(
        "a refresh that posts /token through the very session that carries the interceptor completes",
        arguments: ["expired", nil] as [String?])
    func refreshThroughSameSession(token: String?) async throws {
        try await expectRefreshThroughOwnSession(token: token) { _, session in
            try await session.request(.post, "token").value
        }
    }

    @Test(
        "a refresh that logs in from inside a promise chain, through the session that carries the interceptor, completes",
        arguments: ["expired", nil] as [String?])
    func refreshFromPromiseChain(token: String?) async throws {
        try await expectRefreshThroughOwnSession(token: token) { auth, session in
            // The login is sent from a `then` body, on a promise queue: outside the refresh's task.
            try await Promise(()).then { _ in
                session.exchange(auth.marking(NetworkRequest(method: .post, path: "token"))) {
                    try JSON(parsing: $0.body)
                }
            }.value
        }
    }

    /// A session whose interceptor (starting with `token`) refreshes by `login`, which posts
    /// `/token` through that very session: a `GET /secure` is answered within a generous bound,
    /// after one refresh whose request went as `login` made it.
    func expectRefreshThroughOwnSession(
        token: String?,
        login: @escaping @Sendable (AuthenticationInterceptor<String>, NetworkingSession) async throws -> JSON
    ) async throws {
        try await withStubServer { server in
            // Given: /secure takes only the fresh token; /token answers one, whatever the request carries
            server.route(.get, "/secure") { request, _ in
                request.header("authorization") == "Bearer fresh"
                    ? .json(["ok": true]) : .json(["error": "token expired"], status: 401)
            }
            server.route(.post, "/token", response: .json(["token": "fresh"]))
            let holder = LockedValue<(AuthenticationInterceptor<String>, NetworkingSession)?>(nil)
            let auth = AuthenticationInterceptor(token: token) { _ in
                let (auth, session) = try #require(holder.withLock { $0 })
                let answer = try await login(auth, session)
                return try #require(answer["token"]?.stringValue)
            }
            let session = NetworkingSession(
                url: server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            holder.withLock { $0 = (auth, session) }

            // When: bounded, so that a refresh waiting on itself fails the test instead of hanging it
            // (generously: a loaded machine took over 5 s to get the answer through)
            let answer = try await within(.seconds(60)) { try await session.request(.get, "secure").value }

            // Then: one refresh, its request sent as the refresh made it, and the request answered
            #expect(answer?["ok"] == true)
            #expect(auth.refreshCount == 1 && auth.credential == "fresh")
            let tokenRequests = server.requests.filter { $0.path == "/token" }
            #expect(tokenRequests.count == 1)
            #expect(tokenRequests.first?.header("authorization") == nil)
        }
    }
}

/// The value of `operation`, or nil when it has not finished within `limit` (it is then cancelled
/// and left behind: a task waiting on itself never ends, so it cannot be awaited).
func within<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value? {
    let (outcomes, continuation) = AsyncStream.makeStream(of: Result<Value, any Error>?.self)
    let work = Task {
        do {
            continuation.yield(.success(try await operation()))
        } catch {
            continuation.yield(.failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: limit)
        continuation.yield(nil)
    }
    var iterator = outcomes.makeAsyncIterator()
    let first = await iterator.next() ?? nil
    timer.cancel()
    continuation.finish()
    guard let first else {
        work.cancel()
        return nil
    }
    return try first.get()
}
