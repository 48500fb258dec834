/// Where an action is in its life: ``pending`` → ``executing`` → one of ``finished``,
/// ``failed``, ``cancelled`` (or ``pending`` → ``cancelled`` when cancelled before it started).
public enum ActionState: Sendable, Hashable, CustomStringConvertible {
    /// Submitted, waiting for a slot, its serialization key, or a suspended executor to resume.
    case pending
    /// Running.
    case executing
    /// Returned a value.
    case finished
    /// Threw an error without being cancelled.
    case failed
    /// Cancelled before it started (it never ran), or cancelled while running and then ended by
    /// throwing.
    case cancelled

    /// True for ``finished``, ``failed`` and ``cancelled``: the state never changes again.
    public var isTerminal: Bool {
        switch self {
        case .pending, .executing: false
        case .finished, .failed, .cancelled: true
        }
    }

    /// The case's name.
    public var description: String {
        switch self {
        case .pending: "pending"
        case .executing: "executing"
        case .finished: "finished"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}
