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
///
/// `start()`, `stop()` and the `Service` `run()` drive one lifecycle, and every `stop()` returns in
/// any interleaving of them: a start while a stop waits for the runs under way does not keep that
/// stop waiting; it returns when they end, and AutoSync then runs again.
public final class AutoSync: Sendable {
    /// Why an action ran.
    public enum Trigger: String, Sendable, Hashable, CustomStringConvertible {
        /// Its interval came round (or AutoSync started).
        case schedule
        /// Local writes were made (debounced by ``AutoSyncConfiguration/debounce``, within
        /// ``AutoSyncConfiguration/maximumDebounce``).
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

    /// What AutoSync runs, beside the schedule the state machine keeps for it.
    private struct Job: Sendable {
        let name: String
        let interval: Duration
        /// Submits the action and waits for it; the signal asks the run to stop gracefully.
        let run: @Sendable (ActionExecutor, StopSignal) async -> DepotError?
    }

    /// The state machine and what the shell keeps beside it, under one lock.
    private struct State: Sendable {
        var machine: StateMachine
        var jobs: [Job] = []
        var stops: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        var timer: Task<Void, Never>?
        var timerGeneration = 0
        /// The forwarders ``observe(_:)`` was given, watched while running.
        var observed: [WeakForwarder] = []
        var watching = false
        var watchers: [Task<Void, Never>] = []
        /// The graceful-stop signals of the runs under way, by action index.
        var signals: [Int: StopSignal] = [:]
    }

    /// A forwarder AutoSync watches, not kept alive by it.
    private struct WeakForwarder: Sendable {
        weak var forwarder: Forwarder?
    }

    private let executor: ActionExecutor
    private let interval: Duration
    /// The settings: backoff, jitter, debounce, clock.
    public let configuration: AutoSyncConfiguration
    private let state: LockedValue<State>
    private let hub = EventHub<Event>()

    /// Makes an AutoSync that runs its actions on `executor`, each every `interval` unless
    /// ``add(_:every:)`` gives its own.
    public init(executor: ActionExecutor, every interval: Duration, configuration: AutoSyncConfiguration = .init()) {
        self.executor = executor
        self.interval = interval
        self.configuration = configuration
        state = LockedValue(State(machine: StateMachine(configuration: configuration)))
    }

    deinit {
        let tasks = state.withLock { [$0.timer].compactMap { $0 } + $0.watchers }
        for task in tasks { task.cancel() }
    }

    /// What AutoSync starts and finishes, from now on (a stream per call). The stream ends when
    /// AutoSync stops.
    public var events: AsyncStream<Event> { hub.subscribe() }

    /// Whether ``pause()`` holds it.
    public var isPaused: Bool { state.withLock { $0.machine.paused } }

    /// Adds `action`, run every `interval` (AutoSync's own by default), first as soon as AutoSync
    /// runs. A `SynchronizeAction` whose report holds errors counts as failed.
    public func add<A: Action>(_ action: A, every interval: Duration? = nil) {
        let job = Job(
            name: action.name, interval: interval ?? self.interval,
            run: { executor, stop in
                let proxy = executor.execute(action)
                stop.onRaise { proxy.stop() }
                do {
                    let output = try await proxy.result.value
                    if let report = output as? SynchronizationReport, let first = report.errors.first {
                        return first
                    }
                    return nil
                } catch {
                    return error as? DepotError ?? DepotError(.status, "\(error)", underlying: error)
                }
            })
        step { state, now in
            state.jobs.append(job)
            return state.machine.add(now: now)
        }
    }

    /// Starts running the actions (each at once, then on its schedule). Calling it while running
    /// does nothing; after ``stop()`` it runs again. Called while a stop waits for the runs under
    /// way, it does not keep that stop waiting: the stop returns when they end, then AutoSync
    /// runs again.
    public func start() {
        step { state, now in state.machine.start(now: now) }
    }

    /// Starts no new run until ``resume()``; a run under way finishes.
    public func pause() {
        step { state, now in state.machine.pause(now: now) }
    }

    /// Runs again what fell due while paused, then keeps the schedule.
    public func resume() {
        step { state, now in state.machine.resume(now: now) }
    }

    /// Asks every action to run now (`.connectionRestored`, `.manual`), or after the debounce
    /// pause (`.localWrite`: each new write moves it later, but a burst delays the run by at most
    /// ``AutoSyncConfiguration/maximumDebounce`` from its first write).
    public func trigger(_ trigger: Trigger) {
        step { state, now in state.machine.trigger(trigger, now: now) }
    }

    /// Watches `forwarder` while AutoSync runs: a write waiting in its outbox (the pending count
    /// rising) is a `.localWrite`; a delivery after a failure to reach the server is
    /// `.connectionRestored`.
    public func observe(_ forwarder: Forwarder) {
        state.withLock { state in
            state.observed.removeAll { $0.forwarder == nil }
            state.observed.append(WeakForwarder(forwarder: forwarder))
            if state.watching { state.watchers += watch(forwarder) }
        }
    }

    /// Stops: no new run starts, the watchers and the event streams end, and the runs under way
    /// are asked to stop gracefully (``ActionProxy/stop()``): each ends after its request in
    /// flight, whose answer it stores (its requests are not cancelled), and leaves the rest of its
    /// backlog for the next run, so a stop takes about one request timeout however much is
    /// pending. It returns once they have ended. Every call returns, whatever ``start()`` calls
    /// come meanwhile (those make AutoSync run again once it has stopped).
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            step { state, now in
                state.nextID += 1
                state.stops[state.nextID] = continuation
                return state.machine.stop(state.nextID, now: now)
            }
            // Raised outside AutoSync's lock: each run's action sees `ActionContext.isStopping`.
            for signal in state.withLock({ Array($0.signals.values) }) { signal.raise() }
        }
    }

    // MARK: Shell

    /// Feeds one input to the state machine and carries out the actions it returns. Bookkeeping
    /// (timers, watchers, launches, events) happens under the lock, in the machine's order;
    /// waiting `stop()` calls are resumed after it.
    private func step(_ input: (inout State, Date) -> [StateMachine.Action]) {
        let now = configuration.clock.now
        let resumed = state.withLock { state in
            perform(input(&state, now), state: &state)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Carries out `actions`; returns the stop continuations to resume.
    private func perform(
        _ actions: [StateMachine.Action], state: inout State
    ) -> [CheckedContinuation<Void, Never>] {
        var resumed: [CheckedContinuation<Void, Never>] = []
        for action in actions {
            switch action {
            case .launch(let index, let trigger):
                let signal = StopSignal()
                state.signals[index] = signal
                launch(state.jobs[index], index: index, trigger: trigger, signal: signal)
            case .scheduleWake(let date, let generation):
                guard generation > state.timerGeneration else { continue }
                state.timerGeneration = generation
                state.timer?.cancel()
                state.timer = date.map { date in
                    let clock = configuration.clock
                    return Task { [weak self] in
                        do {
                            try await clock.sleep(until: date)
                        } catch {
                            return
                        }
                        self?.step { state, now in state.machine.tick(now: now) }
                    }
                }
            case .began:
                state.watching = true
                state.observed.removeAll { $0.forwarder == nil }
                for forwarder in state.observed.compactMap(\.forwarder) { state.watchers += watch(forwarder) }
            case .ended:
                state.watching = false
                for watcher in state.watchers { watcher.cancel() }
                state.watchers = []
                hub.finish()
            case .finishStops(let ids):
                resumed += ids.compactMap { state.stops.removeValue(forKey: $0) }
            }
        }
        return resumed
    }

    /// Runs `job` in its own task and reports its end to the state machine.
    private func launch(_ job: Job, index: Int, trigger: Trigger, signal: StopSignal) {
        hub.emit(.started(name: job.name, trigger: trigger))
        let (executor, configuration) = (self.executor, self.configuration)
        Task {
            let failure = await job.run(executor, signal)
            let interval = configuration.jittered(job.interval)
            step { state, now in
                state.signals[index] = nil
                let actions = state.machine.runFinished(index, failure: failure, interval: interval, now: now)
                let next = state.machine.entries[index].due
                // Emitted before the actions, so a stop's end of the streams comes after it.
                hub.emit(.finished(name: job.name, trigger: trigger, failure: failure, next: next))
                return actions
            }
        }
    }

    /// The tasks that turn `forwarder`'s pending counts and events into triggers. They subscribe
    /// in their own tasks, so no storage code runs under AutoSync's lock.
    private func watch(_ forwarder: Forwarder) -> [Task<Void, Never>] {
        let writes = Task { [weak self, weak forwarder] in
            guard let counts = forwarder?.pendingCounts else { return }
            var last: Int?
            for await count in counts {
                if let last, count > last { self?.trigger(.localWrite) }
                last = count
            }
        }
        let outages = Task { [weak self, weak forwarder] in
            guard let events = forwarder?.events else { return }
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
                case .rejected, .conflict, .held:
                    break
                }
            }
        }
        return [writes, outages]
    }
}
