import Foundation

/// The time a ``Forwarder`` reads and waits on: wall-clock `Date`s, because retry times are stored
/// and must mean the same after a restart. Inject one to test backoff without sleeping.
public protocol ForwarderClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Returns at `deadline` or later; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
    /// Whether ``now`` is this machine's wall clock (right or wrong), not a test's manual time. A
    /// forwarder on a wall clock keeps retry times (``OutboxEntry/nextAttempt``) on the store's
    /// clock (``OutboxTransaction/leaseTime()``: the database's on PostgreSQL), so a replica whose
    /// clock runs fast or slow neither hurries nor delays the retries every replica sees; on any
    /// other clock they are on that clock. False unless the clock says otherwise.
    var isWallClock: Bool { get }
}

extension ForwarderClock {
    /// False: a clock of its own (a test's), whose retry times are on it.
    public var isWallClock: Bool { false }
}

/// The system's clock: `Date()` and `Task.sleep`.
public struct SystemForwarderClock: ForwarderClock {
    /// Makes the clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// True: retry times are kept on the store's clock.
    public var isWallClock: Bool { true }

    /// Sleeps until `deadline`, in steps of at most a day, so a deadline read from a stored row
    /// (far away, or not finite) never reaches a trapping conversion; a NaN deadline returns at once.
    public func sleep(until deadline: Date) async throws {
        while true {
            let seconds = deadline.timeIntervalSinceNow
            guard seconds > 0 else { return }
            try await Task.sleep(for: Backoff.duration(seconds: seconds, maximum: .seconds(86_400)))
        }
    }
}
