import Foundation

/// How ``AutoSync`` paces its runs.
public struct AutoSyncConfiguration: Sendable {
    /// The fraction (0…1) of each interval that is random, so many clients do not run together.
    public var jitter: Double
    /// The pause after the first failure; it doubles with each further failure.
    public var baseDelay: Duration
    /// The longest pause after failures, `Retry-After` included.
    public var maximumDelay: Duration
    /// How long after the last of a burst of local writes the actions run.
    public var debounce: Duration
    /// The longest a burst of local writes delays a run, counted from the burst's first write:
    /// writes that keep coming faster than ``debounce`` still get a run this often.
    public var maximumDebounce: Duration
    /// The clock: the system's by default; `ManualForwarderClock` in tests.
    public var clock: any ForwarderClock

    /// Makes a configuration.
    public init(
        jitter: Double = 0.1, baseDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(600),
        debounce: Duration = .seconds(2), maximumDebounce: Duration = .seconds(10),
        clock: any ForwarderClock = SystemForwarderClock()
    ) {
        self.jitter = jitter
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.debounce = debounce
        self.maximumDebounce = maximumDebounce
        self.clock = clock
    }

    /// The pause after `failures` failures in a row, the last with `error` (its `Retry-After`
    /// wins, within ``maximumDelay``).
    func backoff(failures: Int, error: DepotError) -> Duration {
        let retryAfter = error.responseHeaders["retry-after"].flatMap { RetryAfter.seconds($0) }
        return Backoff(base: baseDelay, multiplier: 2, maximum: maximumDelay, jitter: 0)
            .delay(failures: failures, retryAfter: retryAfter)
    }

    /// `interval`, moved by up to ``jitter`` of itself either way.
    func jittered(_ interval: Duration) -> Duration {
        let fraction = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
        guard fraction > 0 else { return interval }
        let seconds = interval.seconds * (1 + Double.random(in: -fraction...fraction))
        return Backoff.duration(seconds: seconds, maximum: .seconds(1e9))
    }
}
