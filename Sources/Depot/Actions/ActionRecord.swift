import Foundation

/// One submitted action's shared state: its state machine, statistics, event history and task,
/// behind one lock. The proxy, the context and the executor all hold it.
final class ActionRecord: Sendable {
    let id: ActionID
    let name: String
    let key: String?
    private let hook: @Sendable () -> Void
    private let emit: @Sendable (ActionEvent) -> Void
    private let observe: @Sendable (ActionEvent) -> Void
    private let clock = ContinuousClock()
    private let state: LockedValue<Inner>

    private struct Inner {
        var machine = StateMachine()
        var statistics: ActionStatistics
        var startInstant: ContinuousClock.Instant?
        var history: [ActionEvent] = []
        var watchers: [UUID: AsyncStream<ActionEvent>.Continuation] = [:]
        var task: Task<Void, Never>?
        var unobserved: [ActionEvent] = []
        /// A graceful stop was asked for: end after the work in flight.
        var stopRequested = false
    }

    /// A record for an action submitted now. `emit` gets each event, in order, under the record's
    /// lock (keep it to stream yields); `observe` gets it just after, outside the lock (logs, metrics).
    init(
        id: ActionID, name: String, key: String?, hook: @escaping @Sendable () -> Void,
        emit: @escaping @Sendable (ActionEvent) -> Void, observe: @escaping @Sendable (ActionEvent) -> Void
    ) {
        self.id = id
        self.name = name
        self.key = key
        self.hook = hook
        self.emit = emit
        self.observe = observe
        state = LockedValue(Inner(statistics: ActionStatistics(submitted: Date())))
    }

    var publicState: ActionState { state.withLock { $0.machine.publicState } }
    var statistics: ActionStatistics { state.withLock { $0.statistics } }
    var isCancelRequested: Bool { state.withLock { $0.machine.isCancelRequested } }
    var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Asks the action to end after the work in flight (``ActionContext/isStopping``); unlike a
    /// cancellation, nothing in flight is interrupted. Idempotent.
    func requestStop() {
        state.withLock { $0.stopRequested = true }
    }

    /// Reports the submission; the first event.
    func submitted() {
        locked { publish(.submitted, in: &$0) }
    }

    /// Starts the body in a task when the action was not cancelled meanwhile; false when skipped.
    func start(_ body: @escaping @Sendable () async -> Void) -> Bool {
        locked { inner in
            guard case .run = inner.machine.start() else { return false }
            inner.statistics.started = Date()
            inner.startInstant = clock.now
            publish(.started, in: &inner)
            inner.task = Task { await body() }
            return true
        }
    }

    /// Cancels the action; tells what was done so the executor can drop a pending one.
    func cancel() -> StateMachine.CancelAction {
        let (action, task) = locked { inner in
            let action = inner.machine.cancel()
            switch action {
            case .none: break
            case .cancelPending: end(.cancelled, in: &inner)
            case .cancelRunning: break
            }
            return (action, inner.task)
        }
        if case .cancelRunning = action {
            hook()
            task?.cancel()
        }
        return action
    }

    /// The body ended: settles the state, reports the terminal event and returns the state.
    func end(_ outcome: StateMachine.Outcome, error: (any Error)?) -> ActionState {
        locked { inner in
            let final = inner.machine.end(outcome)
            let kind: ActionEvent.Kind =
                switch final {
                case .finished: .finished
                case .cancelled: .cancelled
                default: .failed(error ?? DepotError(.invalidRequest, "the action failed"))
                }
            end(kind, in: &inner)
            return final
        }
    }

    /// Adds `amount` to `counter`, while the action runs.
    func record(_ counter: ActionStatistics.Counter, _ amount: Int) {
        state.withLock { inner in
            guard case .executing = inner.machine.state else { return }
            inner.statistics[counter] += amount
        }
    }

    /// Reports progress, while the action runs.
    func progress(_ progress: ActionProgress) {
        locked { inner in
            guard case .executing = inner.machine.state else { return }
            publish(.progress(progress), in: &inner)
        }
    }

    /// The events so far, then the rest as they come; ends after the terminal one.
    func events() -> AsyncStream<ActionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ActionEvent.self, bufferingPolicy: .bufferingNewest(eventStreamBufferLimit))
        let id = UUID.randomV4()
        state.withLock { inner in
            for event in inner.history { continuation.yield(event) }
            if inner.machine.publicState.isTerminal {
                continuation.finish()
            } else {
                inner.watchers[id] = continuation
            }
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Runs `body` under the lock, then hands the events it published to `observe`, in order.
    private func locked<Result>(_ body: (inout Inner) -> Result) -> Result {
        let (result, events) = state.withLock { inner in
            let result = body(&inner)
            defer { inner.unobserved = [] }
            return (result, inner.unobserved)
        }
        for event in events { observe(event) }
        return result
    }

    private func end(_ kind: ActionEvent.Kind, in inner: inout Inner) {
        inner.statistics.finished = Date()
        if let start = inner.startInstant { inner.statistics.duration = clock.now - start }
        inner.task = nil
        publish(kind, in: &inner)
        for watcher in inner.watchers.values { watcher.finish() }
        inner.watchers = [:]
    }

    /// Records and hands out one event; called under the lock, so each action's events keep their order.
    private func publish(_ kind: ActionEvent.Kind, in inner: inout Inner) {
        let event = ActionEvent(action: id, name: name, kind: kind, statistics: inner.statistics)
        if case .progress = kind, case .progress = inner.history.last?.kind {
            inner.history[inner.history.count - 1] = event  // replay keeps the latest progress only
        } else {
            inner.history.append(event)
        }
        for watcher in inner.watchers.values { watcher.yield(event) }
        emit(event)
        inner.unobserved.append(event)
    }
}
