import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// Each account's session (`A`, `B`), every call timed in `calls`, and, in rounds whose tokens
    /// expire, the ``AuthenticationInterceptor`` that puts and refreshes its token. Sessions send
    /// `Authorization` (or a `Cookie`), and in redirect rounds an `X-API-Key` and a
    /// `Proxy-Authorization`; their retry policy honours a `Retry-After` up to 50 ms, or up to the
    /// default 30 s against a server with a long one.
    static func sessions(
        shape: CheckServerShape, url: URL, timeout: Duration, calls: CheckTimedNetworking.Log
    ) -> (sessions: [String: any Networking], authentications: [String: AuthenticationInterceptor<String>]) {
        var sessions: [String: any Networking] = [:]
        var authentications: [String: AuthenticationInterceptor<String>] = [:]
        // A `Retry-After` is honoured up to 50 ms, or up to the default 30 s against a server
        // that answers `Retry-After: 30` (issue 43 #9: no pause may pass the request's timeout).
        let retries = RetryPolicy(
            maximumAttempts: 3, baseDelay: .milliseconds(5),
            maximumDelay: shape.longRetryAfter != nil ? RetryPolicy.standard.maximumDelay : .milliseconds(50))
        for account in ["A", "B"] {
            // Headers that identify the caller besides its credential: an API key the app
            // declares (``CheckRepository/identifyingHeaders``) and a proxy's credential.
            let identifying =
                shape.redirectsElsewhere
                ? ["X-API-Key": "key-\(account)", "Proxy-Authorization": "Basic proxy-\(account)"] : [:]
            guard shape.refreshesTokens else {
                let header =
                    shape.cookies ? ["Cookie": "session=\(account)"] : ["Authorization": "Bearer \(account)"]
                let session = NetworkingSession(
                    url: url, headers: header.merging(identifying) { $1 },
                    configuration: SessionConfiguration(timeout: timeout, retryPolicy: retries))
                sessions[account] = CheckTimedNetworking(base: session, log: calls)
                continue
            }
            // The token service: the same server, a session of its own; or, in rounds whose
            // refresh runs in a promise chain, the account's own session (set once it is made).
            let tokens = NetworkingSession(
                url: url, configuration: SessionConfiguration(timeout: timeout))
            let own = LockedValue<(session: any Networking, authentication: AuthenticationInterceptor<String>)?>(nil)
            let chained = shape.chainedRefresh
            let declared = shape.declaresAccounts ? account : nil
            let authentication = AuthenticationInterceptor(token: "\(account)-1", account: declared) { _ in
                let login = NetworkRequest(
                    method: .post, path: "/token", body: Data("{\"account\": \"\(account)\"}".utf8))
                guard chained, let (session, authentication) = own.withLock({ $0 }) else {
                    return try Self.token(in: try await tokens.send(login))
                }
                // Issue 43 #5: the login, marked as the refresh's own, sent from a promise chain
                // (its steps run on the promises' queue, not in the refresh's task).
                return try await Promise(()).then { _ in
                    session.exchange(authentication.marking(login)) { try Self.token(in: $0) }
                }.value
            }
            authentications[account] = authentication
            let session = CheckTimedNetworking(
                base: NetworkingSession(
                    url: url, headers: identifying,
                    configuration: SessionConfiguration(
                        timeout: timeout, interceptors: [authentication], retryPolicy: retries)),
                log: calls)
            own.withLock { $0 = (session, authentication) }
            sessions[account] = session
        }
        return (sessions, authentications)
    }

    /// The token in a token service's answer (`{"token": "A-2"}`).
    ///
    /// - Throws: `DepotError` `.authentication` when there is none.
    static func token(in response: NetworkResponse) throws -> String {
        guard let token = try JSON(parsing: response.body)["token"]?.stringValue else {
            throw DepotError(.authentication, "no token in the answer")
        }
        return token
    }
}
