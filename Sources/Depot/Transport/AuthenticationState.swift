import Foundation

/// What an ``AuthenticationInterceptor`` knows, behind its lock: the credential, the refresh under
/// way and the requests waiting for it, the last failed refresh.
struct AuthenticationState<Credential: Sendable>: Sendable {
    /// How a wait for a refresh ended.
    enum Wake: Sendable {
        /// The refresh returned this credential.
        case refreshed(Credential)
        /// The refresh failed with this error.
        case failed(DepotError)
        /// The refresh was superseded by ``AuthenticationInterceptor/update(credential:account:)``, or had
        /// ended before the wait began: look at the state again.
        case superseded
        /// The waiting task was cancelled.
        case cancelled
    }

    /// A request waiting for the refresh under way.
    typealias Waiter = CheckedContinuation<Wake, Never>

    /// What a request does next: send (with a credential, or none after a logout), wait for
    /// refresh number n, or fail.
    enum Next {
        case ready(Credential?)
        case wait(Int)
        case fail(DepotError)
    }

    var credential: Credential?
    /// The account ``credential`` belongs to, as the app declared it; nil for none declared.
    var account: String?
    /// True after a logout (``AuthenticationInterceptor/update(credential:account:)`` with nil): requests
    /// go out as they are, and nothing is refreshed.
    var signedOut = false
    /// The refresh under way, and its number.
    var refreshing: (task: Task<Void, Never>, number: Int)?
    /// The last refresh that failed: its number, error and end.
    var failed: (number: Int, error: DepotError, at: ContinuousClock.Instant)?
    var refreshes = 0
    /// The requests waiting for the refresh under way, by waiter number.
    private var waiters: [Int: Waiter] = [:]
    /// Waiters numbered but not registered yet, and those of them cancelled meanwhile.
    private var unregistered: Set<Int> = []
    private var cancelled: Set<Int> = []
    private var lastWaiter = 0
    /// How the last refresh that ran to its end ended, for a waiter that registers after it.
    private var lastFinished: (number: Int, wake: Wake)?

    init(credential: Credential?, account: String? = nil) {
        self.credential = credential
        self.account = account
    }

    /// A number for a new waiter.
    mutating func nextWaiter() -> Int {
        lastWaiter += 1
        unregistered.insert(lastWaiter)
        return lastWaiter
    }

    /// Registers `waiter` for refresh `number`; returns how it ends at once instead (cancelled
    /// already, or that refresh ended or was superseded), and then keeps nothing.
    mutating func register(_ waiter: Int, for number: Int, _ continuation: Waiter) -> Wake? {
        unregistered.remove(waiter)
        if cancelled.remove(waiter) != nil { return .cancelled }
        guard refreshing?.number == number else {
            if let lastFinished, lastFinished.number == number { return lastFinished.wake }
            return .superseded
        }
        waiters[waiter] = continuation
        return nil
    }

    /// Takes `waiter` out: its continuation when it was registered (to be resumed `.cancelled`);
    /// nil when it was already resumed, or is not registered yet (it is told at registration).
    mutating func cancel(_ waiter: Int) -> Waiter? {
        if let continuation = waiters.removeValue(forKey: waiter) { return continuation }
        if unregistered.contains(waiter) { cancelled.insert(waiter) }
        return nil
    }

    /// Ends refresh `number` with `wake` (its credential kept, or its failure remembered at `now`);
    /// returns the waiters to resume. Nothing when that refresh is no longer the one under way.
    mutating func finish(_ number: Int, _ wake: Wake, at now: ContinuousClock.Instant) -> [Waiter] {
        guard refreshing?.number == number else { return [] }
        switch wake {
        case .refreshed(let fresh):
            credential = fresh
            failed = nil
        case .failed(let error):
            failed = (number, error, now)
        case .superseded, .cancelled:
            break
        }
        refreshing = nil
        lastFinished = (number, wake)
        return takeWaiters()
    }

    /// Drops the refresh under way: returns its task (to cancel) and its waiters (to resume
    /// `.superseded`).
    mutating func supersede() -> (Task<Void, Never>?, [Waiter]) {
        let task = refreshing?.task
        refreshing = nil
        lastFinished = nil
        return (task, takeWaiters())
    }

    private mutating func takeWaiters() -> [Waiter] {
        defer { waiters = [:] }
        return Array(waiters.values)
    }
}
