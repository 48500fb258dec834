import Foundation

extension DepotError.Code {
    /// The credentials could not be refreshed (``AuthenticationInterceptor``): the refresh threw.
    public static let authentication = DepotError.Code("authentication")
    /// A request made for one account (``NetworkRequest/account``) met another account's
    /// credential, or none (``AuthenticationInterceptor``): it was not sent.
    public static let otherAccount = DepotError.Code("otherAccount")
}

/// Authentication with one refresh for all: every request gets the current credential; when
/// requests are answered 401, the first starts one `refresh`, the others wait for it, and all are
/// sent again with the new credential. A refresh that fails fails every request waiting on it
/// with one `DepotError` `.authentication` (status 401), so the outbox keeps those writes for a
/// retry instead of refusing them; a refresh that fails because the network is down (a
/// `DepotError` `.transport` or `.timeout`, or a `URLError`) or because the server asked to come
/// back later (a `DepotError` `.status` 5xx, 408 or 429) fails them with that error instead, so a
/// rule with a fallback falls back to the local store as for any unreachable server.
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
/// ``update(credential:account:)`` supersedes a refresh under way: the refresh is cancelled and
/// whatever it returns is dropped, so a sign-in as another account or a logout made meanwhile is never
/// undone by it; the requests that waited for it go out with the credential given (or, after a
/// logout, without one). A request cancelled while it waits for a refresh stops waiting at once
/// with `DepotError` `.cancelled`; the refresh goes on for the others.
///
/// The refresh may send its own requests through the very session that carries this interceptor
/// (a `POST /token`, say): mark them with ``marking(_:)`` and the interceptor neither adapts nor
/// retries them, so the refresh does not wait on itself. The mark is on the request, so it holds
/// wherever the request is sent from — a promise chain's queue, a detached task, a retry:
///
/// ```swift
/// // Inside the refresh, where the app holds `auth` and `session` (as properties, say):
/// let login = auth.marking(try NetworkRequest(method: .post, path: "token", json: credentials))
/// let answer = try await session.exchange(login) { try JSON(parsing: $0.body) }.value
/// ```
///
/// A request sent by the refresh's own task (plain `await`s, no queue hop) is recognised without
/// the mark too. Those requests go as the refresh builds them, without the expired credential.
///
/// An app with more than one account declares whose credential it holds (``account``): every
/// write's outbox entry records it, and a request made for one account
/// (``NetworkRequest/account``) is never sent with another's credential, nor after a logout: it
/// fails with `DepotError` `.otherAccount`, and the outbox holds the write until its account
/// signs in again.
///
/// ```swift
/// let auth = AuthenticationInterceptor(token: annToken, account: "ann") { try await refresh($0) }
/// auth.update(credential: bobToken, account: "bob")   // ann's queued writes wait for ann
/// ```
public final class AuthenticationInterceptor<Credential: Sendable>: RequestInterceptor {
    /// Gets a new credential; gets the one that was refused (nil when there was none).
    public typealias Refresh = @Sendable (_ expired: Credential?) async throws -> Credential
    /// Puts `credential` on `request` (by default, for a `String`, `Authorization: Bearer <token>`).
    public typealias Apply = @Sendable (_ credential: Credential, _ request: inout NetworkRequest) -> Void

    private let state: LockedValue<AuthenticationState<Credential>>
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
    ///   - account: whose credential it is (a user id, say); nil to declare none.
    public init(
        credential: Credential?, account: String? = nil, failureWindow: Duration = .seconds(1),
        apply: @escaping Apply, refresh: @escaping Refresh
    ) {
        state = LockedValue(AuthenticationState(credential: credential, account: account))
        self.refresh = refresh
        self.apply = apply
        self.failureWindow = failureWindow
    }

    /// How many refreshes have started.
    public var refreshCount: Int { state.withLock { $0.refreshes } }

    /// The current credential.
    public var credential: Credential? { state.withLock { $0.credential } }

    /// The account the current credential belongs to, as the app declared it (nil for none): what
    /// an outbox entry records as the account its write was made under. A refresh keeps it.
    public var account: String? { state.withLock { $0.account } }

    /// Replaces the credential (after a new sign-in, say) and forgets a failed refresh. A refresh
    /// under way is superseded: it is cancelled, what it returns is dropped, and the requests that
    /// waited for it go out with `credential`, unless they were made for another account
    /// (``NetworkRequest/account``): those fail with `DepotError` `.otherAccount`.
    ///
    /// With nil (a logout), requests go out without a credential and a 401 goes to the caller, no
    /// refresh, until a credential is given again.
    ///
    /// - Parameters:
    ///   - credential: the new credential; nil for a logout.
    ///   - account: whose it is; nil declares none. An app that declares accounts gives one on
    ///     every update: writes recorded under another account wait until it is given again.
    public func update(credential: Credential?, account: String? = nil) {
        let (superseded, waiters) = state.withLock { state in
            state.credential = credential
            state.account = account
            state.signedOut = credential == nil
            state.failed = nil
            return state.supersede()
        }
        superseded?.cancel()
        for waiter in waiters { waiter.resume(returning: .superseded) }
    }

    /// `request` marked as made by this interceptor's refresh: this interceptor neither adapts it
    /// (no credential put on it, no wait for the refresh under way) nor retries it after a 401,
    /// which goes to the refresh. Other interceptors treat it as any request.
    ///
    /// - Parameter request: a request the refresh sends through a session that carries this
    ///   interceptor.
    /// - Returns: the same request, marked.
    public func marking(_ request: NetworkRequest) -> NetworkRequest {
        var marked = request
        marked.refreshMarks.insert(ObjectIdentifier(self))
        return marked
    }

    /// Waits for a refresh under way (or starts one when there is no credential), then puts the
    /// credential on the request. A request marked by ``marking(_:)`` (or sent by the refresh's own
    /// task), or made after a logout, is returned as it is.
    ///
    /// - Throws: `DepotError` `.authentication` when the refresh it waited for failed (or that
    ///   refresh's `.transport`, `.timeout` or 5xx/408/429 `.status` error), `.cancelled` when the
    ///   task was cancelled while it waited, `.otherAccount` when the request was made for an
    ///   account (``NetworkRequest/account``) other than the one whose credential is in force.
    public func adapt(_ request: NetworkRequest) async throws -> NetworkRequest {
        if isOwnRefresh(request) { return request }
        let (credential, account) = try await current()
        if let owner = request.account, owner != account {
            throw DepotError(
                .otherAccount,
                "the request was made for account \(owner.debugDescription) and the credential in force is "
                    + (account.map { "account \($0.debugDescription)'s" } ?? "no declared account's"))
        }
        guard let credential else { return request }
        var adapted = request
        apply(credential, &adapted)
        return adapted
    }

    /// A 401: sends the request again after the one refresh that every 401 of the same credential
    /// shares (or at once, when a newer credential is already there). Always true: a failed
    /// refresh fails the request when it is adapted again, with the refresh's error. False for a
    /// request marked by ``marking(_:)`` or sent by the refresh's own task (its 401 goes to the
    /// refresh), and after a logout (the 401 goes to the caller).
    public func shouldRetryUnauthorized(_ request: NetworkRequest, error: DepotError) async -> Bool {
        if isOwnRefresh(request) { return false }
        let now = ContinuousClock.now
        return state.withLock { state in
            if state.signedOut { return false }
            if state.refreshing != nil { return true }  // the next adapt waits for it
            if let credential = state.credential, !sentWith(credential, request) { return true }  // a newer one
            if let failed = state.failed, now - failed.at < failureWindow { return true }  // the next adapt fails
            startRefresh(&state)
            return true
        }
    }

    /// The credential to send with, after the refresh under way if any (nil after a logout), and
    /// the account it belongs to.
    private func current() async throws -> (Credential?, account: String?) {
        while true {
            let now = ContinuousClock.now
            let (next, account): (AuthenticationState<Credential>.Next, String?) = state.withLock { state in
                if state.signedOut { return (.ready(nil), nil) }
                if let refreshing = state.refreshing { return (.wait(refreshing.number), nil) }
                if let failed = state.failed, now - failed.at < failureWindow, failed.number == state.refreshes {
                    // A request adapted again after the failed refresh it was part of.
                    return (.fail(failed.error), nil)
                }
                if let credential = state.credential { return (.ready(credential), state.account) }
                return (.wait(startRefresh(&state)), nil)
            }
            switch next {
            case .ready(let credential):
                return (credential, account)
            case .fail(let error):
                throw error
            case .wait(let number):
                switch await waitForRefresh(number) {
                case .refreshed(let credential):
                    // A refresh keeps the account; one given since (which superseded this refresh
                    // for every later request) is read now, so a request never goes as another.
                    return (credential, state.withLock { $0.account })
                case .failed(let error): throw error
                case .superseded: continue  // a credential given meanwhile, or a logout: look again
                case .cancelled: throw DepotError(.cancelled, "the request was cancelled while waiting for a token")
                }
            }
        }
    }

    /// Waits until refresh `number` ends, is superseded, or the task is cancelled.
    private func waitForRefresh(_ number: Int) async -> AuthenticationState<Credential>.Wake {
        let waiter = state.withLock { $0.nextWaiter() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<AuthenticationState<Credential>.Wake, Never>) in
                let wake = state.withLock { $0.register(waiter, for: number, continuation) }
                if let wake { continuation.resume(returning: wake) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.cancel(waiter) }
            continuation?.resume(returning: .cancelled)
        }
    }

    /// Whether `request` is this interceptor's refresh's own: marked so on the request (the fact,
    /// which survives any hop), or sent by the refresh's own task (a convenience for a refresh
    /// written with plain `await`s, whose unmarked requests would otherwise wait on it).
    private func isOwnRefresh(_ request: NetworkRequest) -> Bool {
        let id = ObjectIdentifier(self)
        return request.refreshMarks.contains(id) || AuthenticationRefresh.interceptors.contains(id)
    }

    /// Starts a refresh of the current credential, marked as this interceptor's own so that its
    /// requests are not adapted, and returns its number; the caller holds the lock. The refresh
    /// hands its outcome to ``finish(_:with:)``, which drops it when the refresh was superseded.
    @discardableResult
    private func startRefresh(_ state: inout AuthenticationState<Credential>) -> Int {
        let (refresh, expired) = (self.refresh, state.credential)
        let marks = AuthenticationRefresh.interceptors.union([ObjectIdentifier(self)])
        state.refreshes += 1
        let number = state.refreshes
        let task = Task {
            let outcome: Result<Credential, any Error>
            do {
                outcome = .success(
                    try await AuthenticationRefresh.$interceptors.withValue(marks) { try await refresh(expired) })
            } catch {
                outcome = .failure(error)
            }
            self.finish(number, with: outcome)
        }
        state.refreshing = (task, number)
        return number
    }

    /// Ends refresh `number` with `outcome` and wakes its waiters; nothing when it was superseded.
    private func finish(_ number: Int, with outcome: Result<Credential, any Error>) {
        let wake: AuthenticationState<Credential>.Wake
        switch outcome {
        case .success(let credential): wake = .refreshed(credential)
        case .failure(let error): wake = .failed(Self.failure(error))
        }
        let waiters = state.withLock { $0.finish(number, wake, at: ContinuousClock.now) }
        for waiter in waiters { waiter.resume(returning: wake) }
    }

    /// The error a failed refresh reports: the network's own when it failed for a transport reason
    /// or a timeout, or the server's status error when it answered 5xx, 408 or 429 (come back
    /// later: so a rule with a fallback falls back, and the outbox retries); else, the server
    /// refused the refresh (401, 403, 400 `invalid_grant`…) or it threw, `.authentication`
    /// (status 401).
    static func failure(_ error: any Error) -> DepotError {
        if let error = error as? DepotError, [.authentication, .transport, .timeout].contains(error.code) {
            return error
        }
        if let error = error as? DepotError, error.code == .status, let status = error.status,
            status >= 500 || status == 408 || status == 429
        {
            return error
        }
        if let urlError = error as? URLError {
            let timedOut = urlError.code == .timedOut
            return DepotError(
                timedOut ? .timeout : .transport, "the credentials could not be refreshed: \(urlError)",
                underlying: urlError)
        }
        return DepotError(
            .authentication, "the credentials could not be refreshed: \(error)", status: 401, underlying: error)
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
    ///   - failureWindow: see ``init(credential:account:failureWindow:apply:refresh:)``.
    ///   - refresh: gets a new token; gets the refused one.
    ///   - account: whose token it is; nil to declare none (see ``account``).
    public convenience init(
        token: String?, account: String? = nil, failureWindow: Duration = .seconds(1), refresh: @escaping Refresh
    ) {
        self.init(
            credential: token, account: account, failureWindow: failureWindow,
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" }, refresh: refresh)
    }
}

/// The interceptors whose refresh the current task runs within (a generic class cannot hold a
/// task-local of its own).
enum AuthenticationRefresh {
    @TaskLocal static var interceptors: Set<ObjectIdentifier> = []
}
