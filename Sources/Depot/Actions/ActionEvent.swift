import Foundation

/// Identifies one submitted action within its executor; numbered from 1 in submission order.
public struct ActionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The submission number.
    public let rawValue: UInt64

    /// The id numbered `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders by submission.
    public static func < (lhs: ActionID, rhs: ActionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }
}

/// How far an action has come, as it reports through ``ActionContext/progress(completed:total:message:)``.
public struct ActionProgress: Sendable, Hashable {
    /// Units done so far.
    public var completed: Int
    /// Units in all, when known.
    public var total: Int?
    /// A short human-readable note.
    public var message: String?

    /// A progress report.
    public init(completed: Int, total: Int? = nil, message: String? = nil) {
        self.completed = completed
        self.total = total
        self.message = message
    }

    /// `completed / total`, when the total is known and positive.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return Double(completed) / Double(total)
    }
}

/// One step of one action's life. Per action they come in order: ``Kind-swift.enum/submitted``,
/// ``Kind-swift.enum/started``, any ``Kind-swift.enum/progress(_:)``, then exactly one of
/// ``Kind-swift.enum/finished``, ``Kind-swift.enum/failed(_:)``, ``Kind-swift.enum/cancelled``
/// (an action cancelled before it started goes from submitted to cancelled).
public struct ActionEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// Handed to the executor.
        case submitted
        /// Began running.
        case started
        /// Reported progress.
        case progress(ActionProgress)
        /// Returned a value.
        case finished
        /// Threw this error.
        case failed(any Error)
        /// Cancelled: before it started, or while running and then ended.
        case cancelled

        /// True for the three last events of an action.
        public var isTerminal: Bool {
            switch self {
            case .submitted, .started, .progress: false
            case .finished, .failed, .cancelled: true
            }
        }

        /// The case's name.
        public var name: String {
            switch self {
            case .submitted: "submitted"
            case .started: "started"
            case .progress: "progress"
            case .finished: "finished"
            case .failed: "failed"
            case .cancelled: "cancelled"
            }
        }
    }

    /// The action it concerns.
    public let action: ActionID
    /// The action's ``Action/name``.
    public let name: String
    /// What happened.
    public let kind: Kind
    /// The action's statistics as they were at this event.
    public let statistics: ActionStatistics

    /// Name, id and what happened, e.g. `ImportAuthors #3 finished`.
    public var description: String { "\(name) \(action) \(kind.name)" }
}
