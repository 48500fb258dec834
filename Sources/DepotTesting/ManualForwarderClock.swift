import Depot
import Foundation

/// A `ForwarderClock` that moves only when told to: backoff and `Retry-After` are tested
/// exactly, without sleeping.
///
/// ```swift
/// let clock = ManualForwarderClock()
/// let forwarder = Forwarder(for: cached, configuration: ForwarderConfiguration(jitter: 0, clock: clock))
/// var events = forwarder.events.makeAsyncIterator()
/// forwarder.start()                          // a 503 schedules a retry 1 s ahead
/// while let event = await events.next() {    // wait until the retry is scheduled
///     if case .retrying = event { break }
/// }
/// clock.advance(by: .seconds(1))             // the retry goes now
/// ```
public final class ManualForwarderClock: ForwarderClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UUID: Sleeper] = [:]
    }

    private let state: LockedValue<State>

    /// A clock standing at `start`.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = LockedValue(State(now: start))
    }

    /// The clock's time.
    public var now: Date { state.withLock { $0.now } }

    /// The deadlines of the sleeps waiting now, earliest first.
    public var deadlines: [Date] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Returns when the clock reaches `deadline` (at once if it has); throws `CancellationError`
    /// when the task is cancelled first.
    public func sleep(until deadline: Date) async throws {
        let id = UUID.randomV4()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.now >= deadline { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func cancel(_ id: UUID) {
        state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
    }

    /// Moves the clock forward by `duration` and wakes every sleep whose deadline has come.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock to the earliest waiting deadline, waking that sleep; returns the distance
    /// moved, or nil when nothing sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> TimeInterval? {
        guard let next = deadlines.first else { return nil }
        // A stored deadline is data: bounded before it meets a trapping conversion.
        let distance = boundedDelay(next.timeIntervalSince(now))
        advance(by: .seconds(distance))
        return distance
    }
}
