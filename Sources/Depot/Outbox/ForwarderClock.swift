import Foundation

/// The time a ``Forwarder`` reads and waits on: wall-clock `Date`s, because retry times are stored
/// and must mean the same after a restart. Inject one to test backoff without sleeping.
public protocol ForwarderClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Returns at `deadline` or later; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The system's clock: `Date()` and `Task.sleep`.
public struct SystemForwarderClock: ForwarderClock {
    /// Makes the clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

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
