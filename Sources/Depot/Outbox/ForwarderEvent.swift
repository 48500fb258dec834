import Foundation

/// What happened to one outbox entry, as a ``Forwarder`` reports it on ``Forwarder/events``.
public enum ForwarderEvent: Sendable {
    /// The server took the entry; its answer is stored and the entry is gone.
    case delivered(OutboxEntry)
    /// The entry failed in a way worth retrying (no connection, a timeout, 401, 408, 429, 5xx):
    /// it goes again at ``OutboxEntry/nextAttempt``. The error says what failed.
    case retrying(OutboxEntry, DepotError)
    /// The server refused the entry for good; it is kept aside with ``OutboxEntry/rejection``
    /// until the app retries or discards it (``Forwarder/retry(_:)``, ``Forwarder/discard(_:)``).
    case rejected(OutboxEntry)
    /// The server had changed the entity (409/412); the conflict policy chose this resolution.
    case conflict(OutboxEntry, ConflictResolution)
    /// The entry was recorded under an account other than the one signed in now
    /// (``OutboxEntry/account``): it was not sent, and waits until that account is back or the
    /// app discards it (``Forwarder/held()``, ``Forwarder/discard(account:)``).
    case held(OutboxEntry)
}

extension ForwarderEvent {
    /// The entry the event is about.
    public var entry: OutboxEntry {
        switch self {
        case .delivered(let entry), .retrying(let entry, _), .rejected(let entry), .conflict(let entry, _),
            .held(let entry):
            entry
        }
    }
}

/// What one ``Forwarder/flush()`` did.
public struct ForwardingReport: Sendable {
    /// Entries the server took (a conflict resolved by sending again included).
    public var delivered = 0
    /// Entries that failed in a retryable way and wait for their next attempt.
    public var retrying = 0
    /// Conflicts resolved by the conflict policy.
    public var conflicts = 0
    /// Entries the server refused for good during this flush.
    public var rejected: [OutboxEntry] = []
    /// Entries not sent because they were recorded under an account other than the one signed in
    /// (``OutboxEntry/account``): they wait for it (``Forwarder/held()``).
    public var held: [OutboxEntry] = []
    /// Errors of the retrying entries, in order (a storage failure included).
    public var errors: [DepotError] = []
    /// Requests sent (a conflict's read and resend included).
    public var requests = 0
    /// Request body bytes sent.
    public var bytesSent = 0
    /// Response body bytes received, error answers included.
    public var bytesReceived = 0
    /// The entry whose answer a caller waits for (a remote-first write folded into it), and what
    /// became of it. Only that one is kept.
    var answerOf: Int64?
    var answer = CarriedAnswer.notDelivered

    /// An empty report.
    public init() {}

    /// Adds `other`'s counts to these.
    mutating func add(_ other: ForwardingReport) {
        delivered += other.delivered
        retrying += other.retrying
        conflicts += other.conflicts
        rejected += other.rejected
        held += other.held
        errors += other.errors
        requests += other.requests
        bytesSent += other.bytesSent
        bytesReceived += other.bytesReceived
        if case .delivered = other.answer { answer = other.answer }
    }
}

/// What became of the outbox entry that carries a caller's write (one a remote-first write folded
/// into): the fact the send recorded, read by the write's answer.
enum CarriedAnswer: Sendable {
    /// This send did not deliver it (it stays queued, or a forwarder has it).
    case notDelivered
    /// Delivered; the server's answer, nil when it had no body.
    case delivered(OutboxChannel.Answer?)
}
