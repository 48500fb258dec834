import Foundation

extension DepotError.Code {
    /// The credentials could not be refreshed (``AuthenticationInterceptor``): the refresh threw.
    public static let authentication = DepotError.Code("authentication")
}

/// Authentication with one refresh for all: every request gets the current credential; when
/// requests are answered 401, the first starts one `refresh`, the others wait for it, and all are
/// sent again with the new credential. A refresh that fails fails every request waiting on it
/// with one `DepotError` `.authentication` (status 401), so the outbox keeps those writes for a
/// retry instead of refusing them.
///
/// ```swift
/// let auth = AuthenticationInterceptor(credential: storedToken) { expired in
///     try await tokenService.refresh(expired)          // called once, however many requests wait
/// }
/// let session = NetworkingSession(url: api, configuration: SessionConfiguration(interceptors: [auth]))
/// ```
///
/// A request answered 401 that was sent with an older credential than the current one (its answer
/// arrived after a refresh) is sent again with the current one, without another refresh. With no
/// credential at first, the first request refreshes before it is sent.
///
/// The refresh may send its own requests through the very session that carries this interceptor
/// (a `POST /token`, say): the interceptor neither adapts nor retries a request made from within
/// its own refresh (the refresh runs with a task-local mark), so it does not wait on itself.
/// Those requests go as the refresh builds them, without the expired credential.
public final class AuthenticationInterceptor<Credential: Sendable>: RequestInterceptor {
    /// Gets a new credential; gets the one that was refused (nil when there was none).
    public typealias Refresh = @Sendable (_ expired: Credential?) async throws -> Credential
    /// Puts `credential` on `request` (by default, for a `String`, `Authorization: Bearer <token>`).
    public typealias Apply = @Sendable (_ credential: Credential, _ request: inout NetworkRequest) -> Void

    private struct State: Sendable {
        var credential: Credential?
        /// The refresh under way, and its number.
        var refreshing: (task: Task<Credential, any Error>, number: Int)?
        /// The last refresh that failed: its number, error and end.
        var failed: (number: Int, error: DepotError, at: ContinuousClock.Instant)?
        var refreshes = 0
    }

    /// What a request does next: send with a credential, wait for a refresh, or fail.
    private enum Next {
        case ready(Credential)
        case wait(Task<Credential, any Error>, Int)
        case fail(DepotError)
    }

    private let state: LockedValue<State>
    private let refresh: Refresh
    private let apply: Apply
    private let failureWindow: Duration

    /// Makes an interceptor.
    ///
    /// - Parameters:
    ///   - credential: the credential to start with; nil to refresh before the first request.
    ///   - failureWindow: how long after a failed refresh requests fail at once with its error
    ///     instead of refreshing again, so a burst of requests meets one refresh whether it
    ///     succeeds or fails; after it, the next 401 refreshes again.
    ///   - apply: puts the credential on a request.
    ///   - refresh: gets a new credential.
    public init(
        credential: Credential?, failureWindow: Duration = .seconds(1), apply: @escaping Apply,
        refresh: @escaping Refresh
    ) {
        state = LockedValue(State(credential: credential))
        self.refresh = refresh
        self.apply = apply
        self.failureWindow = failureWindow
    }

    /// How many refreshes have started.
    public var refreshCount: Int { state.withLock { $0.refreshes } }

    /// The current credential.
    public var credential: Credential? { state.withLock { $0.credential } }

    /// Replaces the credential (after a new sign-in, say) and forgets a failed refresh.
    public func update(credential: Credential?) {
        state.withLock {
            $0.credential = credential
            $0.failed = nil
        }
    }

    /// Waits for a refresh under way (or starts one when there is no credential), then puts the
    /// credential on the request. A request made from within this interceptor's own refresh is
    /// returned as it is.
    ///
    /// - Throws: `DepotError` `.authentication` when the refresh it waited for failed.
    public func adapt(_ request: NetworkRequest) async throws -> NetworkRequest {
        if isOwnRefresh { return request }
        let credential = try await current()
        var adapted = request
        apply(credential, &adapted)
        return adapted
    }

    /// A 401: sends the request again after the one refresh that every 401 of the same credential
    /// shares (or at once, when a newer credential is already there). Always true: a failed
    /// refresh fails the request when it is adapted again, with the refresh's error. False for a
    /// request made from within this interceptor's own refresh: its 401 goes to the refresh.
    public func shouldRetryUnauthorized(_ request: NetworkRequest, error: DepotError) async -> Bool {
        if isOwnRefresh { return false }
        let now = ContinuousClock.now
        state.withLock { state in
            if state.refreshing != nil { return }  // the next adapt waits for it
            if let credential = state.credential, !sentWith(credential, request) { return }  // a newer one
            if let failed = state.failed, now - failed.at < failureWindow { return }  // the next adapt fails
            startRefresh(&state)
        }
        return true
    }

    /// The credential to send with: after the refresh under way, if any.
    private func current() async throws -> Credential {
        let now = ContinuousClock.now
        let next: Next = state.withLock { state in
            if let refreshing = state.refreshing { return .wait(refreshing.task, refreshing.number) }
            if let failed = state.failed, now - failed.at < failureWindow, failed.number == state.refreshes {
                // A request adapted again after the failed refresh it was part of.
                return .fail(failed.error)
            }
            if let credential = state.credential { return .ready(credential) }
            return .wait(startRefresh(&state), state.refreshes)
        }
        switch next {
        case .ready(let credential):
            return credential
        case .fail(let error):
            throw error
        case .wait(let task, let number):
            do {
                let fresh = try await task.value
                state.withLock { state in
                    if state.refreshing?.number == number {
                        state.credential = fresh
                        state.refreshing = nil
                        state.failed = nil
                    }
                }
                return fresh
            } catch {
                let failure =
                    (error as? DepotError).flatMap { $0.code == .authentication ? $0 : nil }
                    ?? DepotError(
                        .authentication, "the credentials could not be refreshed: \(error)", status: 401,
                        underlying: error)
                state.withLock { state in
                    if state.refreshing?.number == number {
                        state.refreshing = nil
                        state.failed = (number, failure, ContinuousClock.now)
                    }
                }
                throw failure
            }
        }
    }

    /// Whether the current task runs within this interceptor's refresh.
    private var isOwnRefresh: Bool {
        AuthenticationRefresh.interceptors.contains(ObjectIdentifier(self))
    }

    /// Starts a refresh of the current credential, marked as this interceptor's own so that its
    /// requests are not adapted; the caller holds the lock.
    @discardableResult
    private func startRefresh(_ state: inout State) -> Task<Credential, any Error> {
        let (refresh, expired) = (self.refresh, state.credential)
        let marks = AuthenticationRefresh.interceptors.union([ObjectIdentifier(self)])
        let task = Task {
            try await AuthenticationRefresh.$interceptors.withValue(marks) { try await refresh(expired) }
        }
        state.refreshes += 1
        state.refreshing = (task, state.refreshes)
        return task
    }

    /// Whether `request` carries what `credential` puts on a request.
    private func sentWith(_ credential: Credential, _ request: NetworkRequest) -> Bool {
        var probe = NetworkRequest(method: .get, path: "")
        probe.headers = .init()
        apply(credential, &probe)
        return probe.headers.allSatisfy { field in request.headers[field.name] == field.value }
    }
}

extension AuthenticationInterceptor where Credential == String {
    /// A bearer token: `Authorization: Bearer <token>`.
    ///
    /// - Parameters:
    ///   - token: the token to start with; nil to refresh before the first request.
    ///   - failureWindow: see ``init(credential:failureWindow:apply:refresh:)``.
    ///   - refresh: gets a new token; gets the refused one.
    public convenience init(
        token: String?, failureWindow: Duration = .seconds(1), refresh: @escaping Refresh
    ) {
        self.init(
            credential: token, failureWindow: failureWindow,
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" }, refresh: refresh)
    }
}

/// The interceptors whose refresh the current task runs within (a generic class cannot hold a
/// task-local of its own).
enum AuthenticationRefresh {
    @TaskLocal static var interceptors: Set<ObjectIdentifier> = []
}
