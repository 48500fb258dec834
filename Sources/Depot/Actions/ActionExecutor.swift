import CoreMetrics
import Foundation
import Logging

/// Runs actions with a concurrency limit and hands back a proxy for each at once.
///
/// ```swift
/// let executor = ActionExecutor(maxConcurrent: 4, session: session)
/// let proxy = executor.execute(ImportAuthors(source: url))       // returns at once
/// proxy.cancel()                                                  // idempotent
/// let count = try await proxy.result.value
/// for await event in executor.events { print(event) }             // every action's events
/// await executor.shutdown(cancelPending: false)                   // waits for the running ones
/// ```
///
/// - At most ``maxConcurrent`` actions run at once; the others wait in submission order.
/// - Actions with the same ``Action/serializationKey`` run one at a time, in submission order;
///   while one waits for its key, later actions without that key go ahead.
/// - ``suspend()`` starts nothing new until ``resume()``; running actions go on.
/// - Every event goes to ``events``, to the logger, and to swift-metrics (see ``init(maxConcurrent:session:storage:logger:metricsFactory:eventBufferLimit:)``).
public final class ActionExecutor: Sendable {
    /// The most actions that run at once.
    public let maxConcurrent: Int
    /// The session each action's context counts requests through, if any.
    public let session: (any Networking)?
    /// The storage each action's context offers, if any.
    public let storage: (any Storage)?
    /// The logger actions and events log to.
    public let logger: Logger

    private let observer: Observer
    private let hub: EventHub<ActionEvent>
    private let core: LockedValue<Core>

    private struct Core {
        var scheduler: Scheduler
        var lastID: UInt64 = 0
        var waiting: [ActionID: Entry] = [:]
        var running: [ActionID: ActionRecord] = [:]
        var shutdowns: [CheckedContinuation<Void, Never>] = []
        var isClosed = false
    }

    /// A pending action: its record, how to start it, and how to reject it when cancelled unstarted.
    private struct Entry: Sendable {
        let record: ActionRecord
        let start: @Sendable () -> Bool
        let rejectCancelled: @Sendable () -> Void
    }

    /// An executor.
    ///
    /// - Parameters:
    ///   - maxConcurrent: the most actions that run at once; at least 1 (default 4).
    ///   - session: handed to every action as ``ActionContext/session``, which counts requests and bytes.
    ///   - storage: handed to every action as ``ActionContext/storage``.
    ///   - logger: where events are logged (`debug` for submitted and started, `info` finished,
    ///     `notice` cancelled, `error` failed).
    ///   - metricsFactory: where counters and timers go; `nil` (the default) uses the factory
    ///     `MetricsSystem.bootstrap` installed, if any.
    ///   - eventBufferLimit: how many unread events each ``events`` stream keeps, the newest
    ///     (default 1,024; at least 1).
    public init(
        maxConcurrent: Int = 4,
        session: (any Networking)? = nil,
        storage: (any Storage)? = nil,
        logger: Logger = Logger(label: "depot.actions"),
        metricsFactory: (any MetricsFactory)? = nil,
        eventBufferLimit: Int = 1024
    ) {
        precondition(maxConcurrent >= 1, "an executor runs at least one action at a time")
        hub = EventHub(limit: eventBufferLimit)
        self.maxConcurrent = maxConcurrent
        self.session = session
        self.storage = storage
        self.logger = logger
        observer = Observer(logger: logger, factory: metricsFactory)
        core = LockedValue(Core(scheduler: Scheduler(maxConcurrent: maxConcurrent)))
    }

    deinit {
        hub.finish()
    }

    /// Every action's events from now on, each action's in order. The stream ends when a
    /// ``shutdown(cancelPending:stopRunning:)`` completes. It keeps the newest `eventBufferLimit` events not
    /// yet read (1,024 by default; older ones are dropped), so a loop that stops reading costs
    /// bounded memory.
    public var events: AsyncStream<ActionEvent> {
        let stream = hub.subscribe()
        if core.withLock({ $0.isClosed }) { hub.finish() }
        return stream
    }

    /// Actions running now.
    public var runningCount: Int { core.withLock { $0.scheduler.running.count } }
    /// Actions waiting to start.
    public var pendingCount: Int { core.withLock { $0.scheduler.pending.count } }
    /// Whether ``suspend()`` holds new starts back.
    public var isSuspended: Bool { core.withLock { $0.scheduler.isSuspended } }

    /// Submits `action` and returns its proxy at once; the action starts when a slot and its
    /// serialization key are free. After ``shutdown(cancelPending:stopRunning:)`` the proxy comes back
    /// cancelled, its result rejected with `DepotError` `.cancelled`.
    @discardableResult
    public func execute<A: Action>(_ action: A) -> ActionProxy<A.Output> {
        let (promise, resolver) = Promise<A.Output>.pending()
        let id = core.withLock { core in
            core.lastID += 1
            return ActionID(rawValue: core.lastID)
        }
        let observer = self.observer
        let hub = self.hub
        let record = ActionRecord(
            id: id, name: action.name, key: action.serializationKey, hook: { action.cancel() },
            emit: { hub.emit($0) }, observe: { observer.observe($0) })
        let context = ActionContext(record: record, session: session, storage: storage, logger: logger)
        let rejectCancelled: @Sendable () -> Void = {
            resolver.reject(DepotError(.cancelled, "\(action.name) \(id) was cancelled before it started"))
        }
        let proxy = ActionProxy(record: record, result: promise) { [weak self] outcome in
            guard case .cancelPending = outcome else { return }
            rejectCancelled()
            self?.dropPending(id)
        }
        resolver.onCancel { proxy.cancel() }
        record.submitted()
        let entry = Entry(
            record: record,
            start: { [self] in record.start { await self.run(action, context: context, record: record, resolver) } },
            rejectCancelled: rejectCancelled
        )
        let accepted = core.withLock { core in
            guard core.scheduler.submit(Scheduler.Job(id: id, key: record.key)) else { return false }
            core.waiting[id] = entry
            return true
        }
        guard accepted else {
            _ = record.cancel()
            resolver.reject(DepotError(.cancelled, "the executor is shut down; \(action.name) \(id) never ran"))
            return proxy
        }
        advance()
        return proxy
    }

    /// Starts no new action until ``resume()``; running ones go on.
    public func suspend() {
        core.withLock { $0.scheduler.suspend() }
    }

    /// Starts waiting actions again, as slots allow.
    public func resume() {
        core.withLock { $0.scheduler.resume() }
        advance()
    }

    /// Cancels every pending and running action.
    public func cancelAll() {
        let (waiting, running) = core.withLock { core in (Array(core.waiting.values), Array(core.running.values)) }
        for entry in waiting.sorted(by: { $0.record.id < $1.record.id }) { cancel(entry) }
        for record in running { _ = record.cancel() }
    }

    /// Refuses new actions, then returns once every running action has ended (and every pending
    /// one, unless `cancelPending`). A suspension ends so pending actions can run. ``events``
    /// ends after the last action's terminal event.
    ///
    /// ```swift
    /// await executor.shutdown(stopRunning: true)   // a graceful shutdown: each ends after its request in flight
    /// ```
    ///
    /// - Parameters:
    ///   - cancelPending: cancel the actions that have not started (they never run) instead of
    ///     running them.
    ///   - stopRunning: ask every running and pending action to stop gracefully (``ActionProxy/stop()``):
    ///     each ends after its request in flight, whose answer it stores, so the shutdown takes
    ///     about one request whatever work is left. `false` (the default) lets them run to the end.
    public func shutdown(cancelPending: Bool = false, stopRunning: Bool = false) async {
        let (cancelled, stopped) = core.withLock { core in
            let cancelled = core.scheduler.shutdown(cancelPending: cancelPending).compactMap {
                core.waiting.removeValue(forKey: $0)
            }
            let stopped = stopRunning ? core.waiting.values.map(\.record) + core.running.values : []
            return (cancelled, stopped)
        }
        for record in stopped { record.requestStop() }
        for entry in cancelled { cancel(entry) }
        advance()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = core.withLock { core in
                guard !core.isClosed else { return true }
                core.shutdowns.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: - Shell

    private func cancel(_ entry: Entry) {
        guard case .cancelPending = entry.record.cancel() else { return }
        entry.rejectCancelled()
        dropPending(entry.record.id)
    }

    private func dropPending(_ id: ActionID) {
        let dropped = core.withLock { core in
            guard core.scheduler.removePending(id) else { return false }
            core.waiting[id] = nil
            return true
        }
        if dropped { advance() }
    }

    private func run<A: Action>(
        _ action: A, context: ActionContext, record: ActionRecord, _ resolver: Promise<A.Output>.Resolver
    ) async {
        do {
            let output = try await action.execute(context: context)
            _ = record.end(.returned, error: nil)
            resolver.fulfill(output)
        } catch {
            let isCancellation = error is CancellationError || (error as? DepotError)?.isCancellation == true
            let final = record.end(.threw(isCancellation: isCancellation), error: error)
            if final == .cancelled, (error as? DepotError)?.isCancellation != true {
                resolver.reject(DepotError(.cancelled, "\(action.name) \(record.id) was cancelled", underlying: error))
            } else {
                resolver.reject(error)
            }
        }
        advance(finishing: record.id)
    }

    /// Frees `finishing`'s slot, starts what may start, and ends a shutdown that has nothing left.
    private func advance(finishing: ActionID? = nil) {
        var ended = finishing.map { [$0] } ?? []
        while true {
            let (ready, shutdowns, close) = core.withLock { core in
                for id in ended {
                    core.scheduler.finished(id)
                    core.running[id] = nil
                }
                let ready = core.scheduler.next().compactMap { core.waiting.removeValue(forKey: $0) }
                for entry in ready { core.running[entry.record.id] = entry.record }
                guard core.scheduler.isShuttingDown, core.scheduler.isIdle, !core.isClosed else {
                    return (ready, [CheckedContinuation<Void, Never>](), false)
                }
                core.isClosed = true
                defer { core.shutdowns = [] }
                return (ready, core.shutdowns, true)
            }
            if close { hub.finish() }
            for continuation in shutdowns { continuation.resume() }
            ended = ready.filter { !$0.start() }.map(\.record.id)
            if ended.isEmpty { return }
        }
    }
}
