import Foundation

/// How a ``Forwarder`` paces and orders its work.
public struct ForwarderConfiguration: Sendable {
    /// How many entities' entries go out at once. 1 (the default) keeps the global order: entries
    /// go one at a time in the order they were made, and one waiting for a retry holds back all
    /// later ones. Above 1, entries of different entities go concurrently and only an entity's
    /// own later entries wait behind it; one entity's entries are always sent in order.
    public var maximumConcurrency: Int
    /// The pause before the first retry of an entry.
    public var baseDelay: Duration
    /// Each further pause is the previous one times this.
    public var multiplier: Double
    /// The longest pause, `Retry-After` included.
    public var maximumDelay: Duration
    /// The fraction (0…1) of each pause that is random, so many clients do not retry in step.
    public var jitter: Double
    /// How often a started forwarder looks at the outbox with no write of this process to wake it
    /// (entries written by another process, say).
    public var pollInterval: Duration
    /// How many entries are read and claimed from the store at a time.
    public var pageSize: Int
    /// How many times one entry's conflict is resolved by sending again before it waits for a retry.
    public var maximumConflictRounds: Int
    /// How long one send of an entry may take before it counts as failed (and is retried later
    /// under the same `Idempotency-Key`); nil leaves the session's timeout. It caps the session's
    /// timeout and never lengthens it: a session set to 2 seconds keeps 2. 10 seconds by default,
    /// so one dead connection (URLSession on Linux waits out the whole timeout on a kept-alive
    /// connection the server closed without answering) never stalls the queue for a minute.
    public var requestTimeout: Duration?
    /// How long a sender's claim on an outbox entry holds without renewal (60 seconds by default).
    /// Claims are stored with the entries, so forwarders on other storage objects, in other
    /// processes on the same file or on other replicas of one database skip them; a sender renews
    /// its claims between entries and every third of this while a send is in flight. The claims
    /// of a process that ended are free at once (a lock the OS or the database drops with it);
    /// expiry, this long after the last renewal, frees those of a process alive but hung. Another
    /// sender of this process never takes an entry from a claim still open, whatever its expiry.
    /// Lease times are on the store's clock (`OutboxTransaction.leaseTime()`), never on ``clock``.
    public var leaseDuration: Duration
    /// How long a `409 Conflict` to a resend of an entry under its `Idempotency-Key` is taken for
    /// "the key's first request is still being processed" (the IETF idempotency-key draft,
    /// Stripe), counted on ``clock`` from the first such answer to that key; nil (the default) for
    /// six times ``requestTimeout`` (a minute with the default timeout; a minute with none).
    ///
    /// Within the window such an answer is no conflict: the entry waits for a retry, with
    /// backoff, and goes again under the same key, so the server replays the first request's
    /// answer once it has one; nothing reads the entity to resolve it (a temporary id the server
    /// never had would read as gone). A `409` to an entry's first send, or to a send under a new
    /// key (a conflict resolution's), is a conflict at once, for the repository's
    /// ``ConflictPolicy``.
    ///
    /// The trade-off: a real conflict met by a resend is resolved only once the window has
    /// passed (the entity's later writes wait that long too), and a server still processing a
    /// key's first request after the window is taken to conflict: its ``ConflictPolicy`` decides
    /// then, and ``ConflictPolicy/clientWins`` sends the write again under a new key, which such a
    /// server may apply besides the first. Make the window longer than the longest time the
    /// server may take over one request.
    public var keyInFlightWindow: Duration?
    /// The time the forwarder reads and waits on; inject a manual clock in tests.
    public var clock: any ForwarderClock

    /// Makes a configuration.
    public init(
        maximumConcurrency: Int = 1,
        baseDelay: Duration = .seconds(1),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(300),
        jitter: Double = 0.2,
        pollInterval: Duration = .seconds(30),
        pageSize: Int = 64,
        maximumConflictRounds: Int = 3,
        requestTimeout: Duration? = .seconds(10),
        leaseDuration: Duration = .seconds(60),
        keyInFlightWindow: Duration? = nil,
        clock: any ForwarderClock = SystemForwarderClock()
    ) {
        self.requestTimeout = requestTimeout
        self.leaseDuration = leaseDuration
        self.keyInFlightWindow = keyInFlightWindow
        precondition(maximumConcurrency >= 1, "maximumConcurrency must be at least 1")
        precondition(pageSize >= 1, "pageSize must be at least 1")
        self.maximumConcurrency = maximumConcurrency
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.pollInterval = pollInterval
        self.pageSize = pageSize
        self.maximumConflictRounds = max(maximumConflictRounds, 0)
        self.clock = clock
    }

    /// The pause after the `attempts`-th failed send of an entry: `Retry-After` when the server
    /// sent one (delay-seconds or an HTTP date; anything else is ignored), else exponential backoff
    /// with jitter; never more than ``maximumDelay``, for any `attempts` up to `Int.max`.
    public func delay(afterAttempt attempts: Int, error: DepotError) -> Duration {
        let retryAfter = error.responseHeaders["retry-after"].flatMap { RetryAfter.seconds($0) }
        let backoff = Backoff(base: baseDelay, multiplier: multiplier, maximum: maximumDelay, jitter: jitter)
        return backoff.delay(failures: attempts, retryAfter: retryAfter)
    }

    /// ``keyInFlightWindow`` in seconds: six times ``requestTimeout`` (ten seconds without one)
    /// when it is nil.
    var keyInFlightSeconds: TimeInterval {
        let window = keyInFlightWindow ?? (requestTimeout ?? .seconds(10)) * 6
        let (seconds, attoseconds) = window.components
        return max(Double(seconds) + Double(attoseconds) / 1e18, 0)
    }

    /// ``leaseDuration`` in seconds, at least one.
    var leaseSeconds: TimeInterval {
        let (seconds, attoseconds) = leaseDuration.components
        return max(Double(seconds) + Double(attoseconds) / 1e18, 1)
    }
}
