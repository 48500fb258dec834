import Foundation

/// Sends the outbox of a networking + storage repository to its server: every local write the
/// server has not taken yet, in the order it was made, exactly once (each carries the
/// `Idempotency-Key` stored with it), across restarts.
///
/// ```swift
/// let forwarder = Forwarder(for: cached)            // cached: a CRUDNetworkingStorageRepository
/// forwarder.start()                                 // forwards in the background from now on
/// let report = try await forwarder.flush().value    // sends what is pending now; waits for it
/// print(report.delivered, report.rejected.count, await forwarder.pendingCount)
/// for await event in forwarder.events { print(event) }   // .delivered, .retrying, .rejected, .conflict
/// await forwarder.stop()                            // finishes the request in flight, then stops
/// ```
///
/// - A delivered entry is removed in the same transaction that stores the server's answer.
/// - Transport errors, timeouts, 401 (after the session's interceptors had their chance), 408,
///   429 and 5xx retry with exponential backoff, jitter and `Retry-After`
///   (``ForwarderConfiguration``); the entry and, in the global order, every later one wait.
/// - 409 and 412 go to the repository's ``CRUDNetworkingStorageRepository/conflictPolicy``; a
///   resend the server had already applied (its version equals what was sent) is delivered.
/// - Any other refusal moves the entry to ``rejected``, with the server's status and body; its
///   entity's later entries wait behind it until the app calls ``retry(_:)`` or ``discard(_:)``.
///
/// One forwarder per storage is the rule; two (or a local-first write sending at once) never send
/// one entry at the same time within a process. From its first ``start()`` until it is released,
/// its ``configuration`` is the storage's: a local-first write's immediate send and
/// `synchronize()`'s entity-by-entity push on that storage use its clock, lease duration,
/// request timeout and backoff.
///
/// ``stop()`` (and a service group's graceful shutdown) ends the pass after the entry in flight:
/// its request is not cancelled, its answer is stored, and the rest stays in the outbox.
public final class Forwarder: Sendable {
    /// The storage whose outbox is forwarded.
    public let storage: Storage
    /// Pacing, ordering and the clock.
    public let configuration: ForwarderConfiguration
    /// The collections forwarded, one per repository.
    public let collections: Set<String>

    let engine: OutboxEngine
    private let hub = EventHub<ForwarderEvent>()
    private let machine = LockedValue(StateMachine())
    private let shell = LockedValue(Shell())

    /// What the shell keeps beside the state machine: the waiters and the scheduled wake.
    private struct Shell {
        var nextID = 0
        var flushes: [Int: Promise<ForwardingReport>.Resolver] = [:]
        var stops: [Int: CheckedContinuation<Void, Never>] = [:]
        var wake: Task<Void, Never>?
        var observer: UUID?
        var observing = false
        var lastPending = 0

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    /// A forwarder for one repository's collection.
    public convenience init<Repository: CRUDNetworkingStorageRepository>(
        for repository: Repository, configuration: ForwarderConfiguration = ForwarderConfiguration()
    ) {
        self.init(storage: repository.storage, repositories: [repository], configuration: configuration)
    }

    /// A forwarder over several repositories of one storage, keeping their entries' global order.
    ///
    /// - Precondition: every repository uses `storage` (the same object), and no two share a
    ///   collection.
    public init(
        storage: Storage, repositories: [any CRUDNetworkingStorageRepository],
        configuration: ForwarderConfiguration = ForwarderConfiguration()
    ) {
        var channels: [String: OutboxChannel] = [:]
        for repository in repositories {
            precondition(
                repository.storage as AnyObject === storage as AnyObject,
                "every repository of a forwarder must use its storage")
            let channel = OutboxChannel(repository)
            precondition(channels[channel.collection] == nil, "two repositories forward \(channel.collection)")
            channels[channel.collection] = channel
        }
        self.storage = storage
        self.configuration = configuration
        self.collections = Set(channels.keys)
        let hub = self.hub
        engine = OutboxEngine(storage: storage, channels: channels, configuration: configuration) { hub.emit($0) }
    }

    deinit {
        let (wake, observer) = shell.withLock { ($0.wake, $0.observer) }
        wake?.cancel()
        if let observer { OutboxCoordinator.of(storage).removeObserver(observer) }
        hub.finish()
    }

    /// Starts forwarding in the background: now, after every local write that records an entry,
    /// when a waiting entry is due, and every ``ForwarderConfiguration/pollInterval``.
    ///
    /// Calling it while running does nothing. Called while a ``stop()`` waits for the pass in
    /// flight (an app going to the background and straight back), it does not take that stop
    /// back: the pass stops after its entry in flight, the waiting `stop()` calls return, and then
    /// the forwarder runs again. Whichever of `start()` and `stop()` came last wins.
    public func start() {
        let register = shell.withLock { shell -> Bool in
            defer { shell.observing = true }
            return !shell.observing
        }
        if register {
            // Registered once, for the forwarder's life: a wake while stopped is ignored, and no
            // start racing a stop can leave a running forwarder without its observer.
            // Its configuration is published with it: a local-first write's immediate send and
            // `synchronize()`'s entity-by-entity push of this storage use the same clock, lease
            // duration, request timeout and backoff.
            let token = OutboxCoordinator.of(storage).addObserver(
                configuration: configuration,
                isRunning: { [weak self] in
                    self?.machine.withLock { $0.lifecycle == .running } ?? false
                }
            ) { [weak self] in
                self?.wake()
            }
            shell.withLock { $0.observer = token }
        }
        perform(machine.withLock { $0.start() }, result: nil)
    }

    /// Sends every pending entry now, entries waiting for a retry included, and fulfils when that
    /// pass ends: with what it delivered, what waits for a retry, and what was refused.
    ///
    /// - Returns: the pass's report. An entry that fails again is not an error here: it is in
    ///   ``ForwardingReport/retrying`` and ``ForwardingReport/errors``.
    /// - Throws: (in the promise) `DepotError` `.cancelled` when the forwarder stops before the
    ///   flush's pass begins, or the promise is cancelled.
    public func flush() -> Promise<ForwardingReport> {
        let (promise, resolver) = Promise<ForwardingReport>.pending()
        let id = shell.withLock { shell in
            let id = shell.makeID()
            shell.flushes[id] = resolver
            return id
        }
        resolver.onCancel { [weak self] in
            guard let self else { return }
            machine.withLock { $0.forget(flush: id) }
            _ = shell.withLock { $0.flushes.removeValue(forKey: id) }
        }
        perform(machine.withLock { $0.flush(id) }, result: nil)
        return promise
    }

    /// Stops background forwarding; returns once the request in flight, if any, has been answered
    /// and stored. Entries not sent stay in the outbox for the next start or flush.
    ///
    /// Every call returns, in any interleaving with ``start()``, ``flush()`` and `run()`: a start
    /// made while this stop waits does not keep it waiting; it returns when the pass in flight
    /// has stopped, and the forwarder then runs again. Flushes still waiting for a pass are
    /// rejected with `.cancelled` unless such a start came, in which case they run in its pass.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = shell.withLock { shell in
                let id = shell.makeID()
                shell.stops[id] = continuation
                return id
            }
            perform(machine.withLock { $0.stop(id) }, result: nil)
        }
    }

    /// What happens to each entry from now on: a new stream per call, so several loops can watch.
    /// A stream keeps the newest 1,024 events its loop has not read yet (older ones are dropped, so
    /// a loop that stops reading costs bounded memory); it ends when the forwarder goes away.
    public var events: AsyncStream<ForwarderEvent> { hub.subscribe() }

    /// How many entries wait to be sent (refused ones not counted). Reads the store; if that
    /// fails, the last count read.
    public var pendingCount: Int {
        get async {
            do {
                let count = try await storage.outboxCount(engine.query(.pending))
                shell.withLock { $0.lastPending = count }
                return count
            } catch {
                return shell.withLock { $0.lastPending }
            }
        }
    }

    /// The entries waiting to be sent, in order.
    public func pending() -> Promise<[OutboxEntry]> {
        let (storage, query) = (self.storage, engine.query(.pending))
        return Promise { try await storage.outbox(query) }
    }

    /// The entries the server refused for good, in order, each with its ``OutboxEntry/rejection``.
    public var rejected: [OutboxEntry] {
        get async throws { try await storage.outbox(engine.query(.rejected)) }
    }

    // MARK: Shell

    private func wake() {
        perform(machine.withLock { $0.wake() }, result: nil)
    }

    private func perform(_ actions: [StateMachine.Action], result: OutboxEngine.PassResult?) {
        for action in actions {
            switch action {
            case .runPass(let everything):
                let (engine, machine) = (self.engine, self.machine)
                Task {
                    let result = await engine.pass(everything: everything) { machine.withLock { $0.passMayContinue } }
                    self.perform(machine.withLock { $0.passFinished() }, result: result)
                }
            case .finishFlushes(let ids):
                let report = result?.report ?? ForwardingReport()
                for resolver in shell.withLock({ shell in ids.compactMap { shell.flushes.removeValue(forKey: $0) } }) {
                    resolver.fulfill(report)
                }
            case .abandonFlushes(let ids):
                for resolver in shell.withLock({ shell in ids.compactMap { shell.flushes.removeValue(forKey: $0) } }) {
                    resolver.reject(DepotError(.cancelled, "the forwarder stopped before this flush ran"))
                }
            case .scheduleWake:
                let clock = configuration.clock
                var deadline = clock.now.addingTimeInterval(configuration.pollInterval.seconds)
                if let due = result?.nextDue { deadline = min(deadline, due) }
                let task = Task { [weak self] in
                    do {
                        try await clock.sleep(until: deadline)
                    } catch {
                        return
                    }
                    self?.wake()
                }
                shell.withLock {
                    $0.wake?.cancel(); $0.wake = task
                }
            case .cancelWake:
                shell.withLock { shell in
                    shell.wake?.cancel()
                    shell.wake = nil
                }
            case .finishStops(let ids):
                for continuation in shell.withLock({ shell in ids.compactMap { shell.stops.removeValue(forKey: $0) } })
                {
                    continuation.resume()
                }
            }
        }
    }
}
