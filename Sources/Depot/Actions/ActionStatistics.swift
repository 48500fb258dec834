import Foundation

/// What an action did and when: its times, the requests and bytes sent through its context's
/// session, and the counts it recorded.
///
/// ```swift
/// let stats = proxy.statistics
/// print(stats.duration ?? .zero, stats.requests, stats.bytes, stats.inserted, stats[.pushed])
/// ```
public struct ActionStatistics: Sendable, Hashable, CustomStringConvertible {
    /// A named count. The library's own are static members; an app adds its own the same way.
    ///
    /// ```swift
    /// extension ActionStatistics.Counter { static let skipped = Self("skipped") }
    /// context.record(.skipped)
    /// ```
    public struct Counter: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The counter's name, as logs and metrics show it.
        public let name: String

        /// A counter named `name`.
        public init(_ name: String) { self.name = name }

        /// Entities the action created locally or remotely.
        public static let inserted = Counter("inserted")
        /// Entities the action changed.
        public static let updated = Counter("updated")
        /// Entities the action removed.
        public static let deleted = Counter("deleted")
        /// Entities sent to a server (synchronization pushes, forwarded outbox entries).
        public static let pushed = Counter("pushed")
        /// Entities read from a server into the store.
        public static let pulled = Counter("pulled")
        /// Requests sent through the context's session (counted by the session).
        public static let requests = Counter("requests")
        /// Request body bytes sent through the context's session (counted by the session).
        public static let bytesSent = Counter("bytesSent")
        /// Response body bytes received through the context's session, error answers included.
        public static let bytesReceived = Counter("bytesReceived")

        /// The name.
        public var description: String { name }

        /// Orders by name.
        public static func < (lhs: Counter, rhs: Counter) -> Bool { lhs.name < rhs.name }
    }

    /// When the action was submitted to the executor.
    public var submitted: Date
    /// When it started running; `nil` while pending, and for an action cancelled before it ran.
    public var started: Date?
    /// When it ended, however it ended (finished, failed or cancelled).
    public var finished: Date?
    /// From start to end on a monotonic clock; `nil` until it ends, and for an action that never ran.
    public var duration: Duration?
    /// Every count so far, by counter; a counter never recorded is absent (and reads as 0).
    public var counts: [Counter: Int] = [:]

    /// Statistics for an action submitted at `submitted`, with nothing counted.
    public init(submitted: Date) { self.submitted = submitted }

    /// The count of `counter`, 0 when never recorded.
    public subscript(_ counter: Counter) -> Int {
        get { counts[counter, default: 0] }
        set { counts[counter] = newValue }
    }

    /// Requests sent through the context's session.
    public var requests: Int { self[.requests] }
    /// Body bytes sent and received through the context's session.
    public var bytes: Int { self[.bytesSent] + self[.bytesReceived] }
    /// Request body bytes sent.
    public var bytesSent: Int { self[.bytesSent] }
    /// Response body bytes received.
    public var bytesReceived: Int { self[.bytesReceived] }
    /// Entities inserted.
    public var inserted: Int { self[.inserted] }
    /// Entities updated.
    public var updated: Int { self[.updated] }
    /// Entities deleted.
    public var deleted: Int { self[.deleted] }
    /// Entities pushed to a server.
    public var pushed: Int { self[.pushed] }
    /// Entities pulled from a server.
    public var pulled: Int { self[.pulled] }

    /// One line: the duration, then every count by name.
    public var description: String {
        let time = duration.map { "\($0)" } ?? "not ended"
        let parts = counts.keys.sorted().map { "\($0.name) \(counts[$0, default: 0])" }
        return ([time] + parts).joined(separator: ", ")
    }
}
