import Foundation

/// Runs actions on their own to keep a local copy in step: each on an interval with jitter, sooner
/// after local writes (debounced) and when the connection comes back, later after failures
/// (exponential backoff, capped, `Retry-After` honoured). Actions go through an
/// ``ActionExecutor``, so two actions with one serialization key never run at once, and AutoSync
/// never submits an action while its previous run is under way.
///
/// ```swift
/// let sync = AutoSync(executor: executor, every: .seconds(300))
/// sync.add(SynchronizeAction(cached))          // runs now, then every 5 minutes
/// sync.observe(forwarder)                      // local writes and a restored connection run it early
/// sync.start(); sync.pause(); sync.resume(); await sync.stop()
/// ```
///
/// The clock is injectable (``AutoSyncConfiguration/clock``): with `ManualForwarderClock` a test
/// moves time itself and checks every run exactly, without sleeping.
public final class AutoSync: Sendable {
    /// Why an action ran.
    public enum Trigger: String, Sendable, Hashable, CustomStringConvertible {
        /// Its interval came round (or AutoSync started).
        case schedule
        /// Local writes were made (debounced by ``AutoSyncConfiguration/debounce``).
        case localWrite
        /// The forwarder delivered again after failing to reach the server.
        case connectionRestored
        /// ``AutoSync/trigger(_:)`` with `.manual`, or a retry after a failure.
        case manual
        /// After a failure, the backoff's pause ended.
        case retry

        /// The raw value.
        public var description: String { rawValue }
    }

    /// What AutoSync did.
    public enum Event: Sendable {
        /// `name` was submitted to the executor, for `trigger`.
        case started(name: String, trigger: Trigger)
        /// `name` ended; `failure` when it threw or reported errors; the next run is due at `next`.
        case finished(name: String, trigger: Trigger, failure: DepotError?, next: Date)
    }

    private struct Entry: Sendable {
        let name: String
        let interval: Duration
        let run: @Sendable (ActionExecutor) async -> DepotError?
        var due: Date
        var trigger: Trigger = .schedule
        var failures = 0
        var running = false
        /// A trigger that came while it ran, and when it asks the next run to start.
        var rerun: (trigger: Trigger, at: Date)?
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var started = false
        var paused = false
        var stopped = false
        var loop: Task<Void, Never>?
        var watchers: [Task<Void, Never>] = []
        var inFlight: [UUID: Task<Void, Never>] = [:]
        /// Runs that ended before their task was put in ``inFlight``.
        var endedEarly: Set<UUID> = []
    }

    private let executor: ActionExecutor
    private let interval: Duration
    /// The settings: backoff, jitter, debounce, clock.
    public let configuration: AutoSyncConfiguration
    private let state = LockedValue(State())
    private let waker = Waker()
    private let hub = EventHub<Event>()

    /// Makes an AutoSync that runs its actions on `executor`, each every `interval` unless
    /// ``add(_:every:)`` gives its own.
    public init(executor: ActionExecutor, every interval: Duration, configuration: AutoSyncConfiguration = .init()) {
        self.executor = executor
        self.interval = interval
        self.configuration = configuration
    }

    /// What AutoSync starts and finishes, from now on (a stream per call).
    public var events: AsyncStream<Event> { hub.subscribe() }

    /// Whether ``pause()`` holds it.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Adds `action`, run every `interval` (AutoSync's own by default), first as soon as AutoSync
    /// runs. A `SynchronizeAction` whose report holds errors counts as failed.
    public func add<A: Action>(_ action: A, every interval: Duration? = nil) {
        let name = action.name
        let entry = Entry(
            name: name, interval: interval ?? self.interval,
            run: { executor in
                let proxy = executor.execute(action)
                do {
                    let output = try await proxy.result.value
                    if let report = output as? SynchronizationReport, let first = report.errors.first {
                        return first
                    }
                    return nil
                } catch {
                    return error as? DepotError ?? DepotError(.status, "\(error)", underlying: error)
                }
            }, due: configuration.clock.now)
        state.withLock { $0.entries.append(entry) }
        waker.wake()
    }

    /// Starts running the actions (each at once, then on its schedule). Calling it again does
    /// nothing.
    public func start() {
        let begin = state.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            return true
        }
        guard begin else { return }
        let loop = Task { await self.runLoop() }
        state.withLock { $0.loop = loop }
    }

    /// Starts no new run until ``resume()``; a run under way finishes.
    public func pause() {
        state.withLock { $0.paused = true }
    }

    /// Runs again what fell due while paused, then keeps the schedule.
    public func resume() {
        state.withLock { $0.paused = false }
        waker.wake()
    }

    /// Asks every action to run now (`.connectionRestored`, `.manual`), or after the debounce
    /// pause (`.localWrite`: each new write moves it later).
    public func trigger(_ trigger: Trigger) {
        let now = configuration.clock.now
        let at = trigger == .localWrite ? now.addingTimeInterval(configuration.debounce.seconds) : now
        state.withLock { state in
            for index in state.entries.indices {
                var entry = state.entries[index]
                // Local writes during a backoff wait for it; a restored connection does not.
                if trigger == .localWrite, entry.failures > 0 { continue }
                if entry.running {
                    entry.rerun = (trigger, at)
                } else if trigger == .localWrite ? (entry.trigger == .localWrite || at < entry.due) : at < entry.due {
                    entry.due = at
                    entry.trigger = trigger
                }
                state.entries[index] = entry
            }
        }
        waker.wake()
    }

    /// Watches `forwarder`: a write waiting in its outbox (the pending count rising) is a
    /// `.localWrite`; a delivery after a failure to reach the server is `.connectionRestored`.
    public func observe(_ forwarder: Forwarder) {
        let counts = forwarder.pendingCounts
        let events = forwarder.events
        let writes = Task { [weak self] in
            var last: Int?
            for await count in counts {
                if let last, count > last { self?.trigger(.localWrite) }
                last = count
            }
        }
        let outages = Task { [weak self] in
            var unreachable = false
            for await event in events {
                switch event {
                case .retrying(_, let error):
                    if error.status == nil { unreachable = true }
                case .delivered:
                    if unreachable {
                        unreachable = false
                        self?.trigger(.connectionRestored)
                    }
                case .rejected, .conflict:
                    break
                }
            }
        }
        state.withLock { $0.watchers += [writes, outages] }
    }

    /// Stops: no new run starts, the watchers end, and the runs under way finish (their requests
    /// are not cancelled) before it returns.
    public func stop() async {
        let (loop, watchers) = state.withLock { state in
            state.stopped = true
            return (state.loop, state.watchers)
        }
        loop?.cancel()
        waker.wake()
        for watcher in watchers { watcher.cancel() }
        await loop?.value
        for task in state.withLock({ Array($0.inFlight.values) }) { await task.value }
        hub.finish()
    }

    /// Starts what is due, then waits until the next due time or a wake-up.
    private func runLoop() async {
        while !Task.isCancelled {
            let now = configuration.clock.now
            let (due, next) = state.withLock { state -> ([Int], Date?) in
                guard !state.stopped else { return ([], nil) }
                var due: [Int] = []
                var next: Date?
                for index in state.entries.indices where !state.entries[index].running {
                    if !state.paused, state.entries[index].due <= now {
                        due.append(index)
                        state.entries[index].running = true
                    } else if !state.paused {
                        next = min(next ?? .distantFuture, state.entries[index].due)
                    }
                }
                return (due, next)
            }
            if state.withLock({ $0.stopped }) { return }
            for index in due { launch(index) }
            await waker.wait(until: next, clock: configuration.clock)
        }
    }

    /// Runs entry `index` in its own task and schedules its next run when it ends.
    private func launch(_ index: Int) {
        let (entry, id) = state.withLock { ($0.entries[index], UUID()) }
        hub.emit(.started(name: entry.name, trigger: entry.trigger))
        let executor = self.executor
        let task = Task {
            let failure = await entry.run(executor)
            let now = configuration.clock.now
            let next = state.withLock { state -> Date in
                var current = state.entries[index]
                current.running = false
                current.failures = failure == nil ? 0 : current.failures + 1
                let pause = failure.map { configuration.backoff(failures: current.failures, error: $0) }
                if let rerun = current.rerun, failure == nil || rerun.trigger == .connectionRestored {
                    // A trigger that came while it ran: run again for it.
                    (current.due, current.trigger) = (max(rerun.at, now), rerun.trigger)
                } else {
                    current.due = now.addingTimeInterval((pause ?? configuration.jittered(current.interval)).seconds)
                    current.trigger = failure == nil ? .schedule : .retry
                }
                current.rerun = nil
                state.entries[index] = current
                if state.inFlight.removeValue(forKey: id) == nil { state.endedEarly.insert(id) }
                return current.due
            }
            hub.emit(.finished(name: entry.name, trigger: entry.trigger, failure: failure, next: next))
            waker.wake()
        }
        state.withLock { state in
            if state.endedEarly.remove(id) == nil { state.inFlight[id] = task }
        }
    }
}

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
    /// The clock: the system's by default; `ManualForwarderClock` in tests.
    public var clock: any ForwarderClock

    /// Makes a configuration.
    public init(
        jitter: Double = 0.1, baseDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(600),
        debounce: Duration = .seconds(2), clock: any ForwarderClock = SystemForwarderClock()
    ) {
        self.jitter = jitter
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.debounce = debounce
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

/// Wakes one waiting loop: early by ``wake()``, or at a deadline of a clock.
private final class Waker: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var pending = false
    }

    private let state = LockedValue(State())

    /// Wakes the waiting loop, or the next wait if none waits now.
    func wake() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let continuation = state.continuation else {
                state.pending = true
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume()
    }

    /// Returns at `deadline` on `clock` (never, when nil), at a ``wake()``, or on cancellation.
    func wait(until deadline: Date?, clock: any ForwarderClock) async {
        let timer = deadline.map { deadline in
            Task { [weak self] in
                do {
                    try await clock.sleep(until: deadline)
                    self?.wake()
                } catch {}
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
        timer?.cancel()
    }
}
