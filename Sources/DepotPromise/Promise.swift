import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that will be available later, or an error: Depot's promise.
///
/// A promise settles exactly once, to a value (fulfilled) or an error (rejected). Chain work on it
/// with ``then(on:_:)``, ``map(on:_:)``, ``done(on:_:)``, ``get(on:_:)``, ``catch(on:policy:_:)``,
/// ``recover(on:policy:_:)``, ``ensure(on:_:)`` and ``finally(on:_:)``; or `await` its
/// ``value``.
///
/// ```swift
/// let greeting = Promise<String> { resolver in resolver.fulfill("hello") }
///     .map { $0.uppercased() }
/// print(try await greeting.value)  // HELLO
/// ```
///
/// Callbacks run on the `DispatchQueue` passed as `on:`, by default ``PromiseDefaults/queue`` (a
/// global concurrent queue, never the main queue). They never run synchronously inside the call
/// that attaches them. Consecutive steps that run on the same queue run one after the other in one
/// hop, without going back through the queue. Callbacks of promises that settle together toward
/// one queue share its blocks: they run in the order they became ready, possibly in a block
/// submitted before them.
public class Promise<Value: Sendable>: @unchecked Sendable {  // @unchecked: a lock stripe guards the vars
    /// Only touched through ``withState(_:)``. The lock enforces exclusive access, so the runtime's
    /// dynamic exclusivity checks (a cost on every access from unspecialized code) are skipped.
    @exclusivity(unchecked) final var storage: PromiseState
    /// The value, once fulfilled: written once, with the state locked, as `phase` becomes
    /// `.fulfilled`. Kept out of ``PromiseState``, and as an existential rather than a `Value?`, so
    /// code outside this module (which runs it unspecialized) stores, reads and frees it without
    /// a generic metadata lookup. A value larger than three words is boxed by the existential.
    @exclusivity(unchecked) final var fulfilledValue: (any Sendable)?

    /// Makes a pending promise that waits on `source` (its parent, for a chained step).
    init(source: (any CancellableNode)?) {
        storage = PromiseState(source: source)
    }

    /// Makes a fulfilled promise.
    init(fulfilled value: Value) {
        storage = PromiseState(phase: .fulfilled)
        fulfilledValue = value
    }

    /// Makes a rejected promise.
    init(rejected error: any Error) {
        storage = PromiseState(phase: .rejected, error: error)
    }

    /// The value of a fulfilled promise. Call only after seeing `.fulfilled` under the lock.
    final var storedValue: Value { fulfilledValue! as! Value }

    /// Runs `body` with the promise's state locked (a pthread mutex from ``LockStripes/promises``,
    /// which ThreadSanitizer models). `body` must not lock another promise.
    @inline(__always)
    final func withState<Output>(_ body: (inout PromiseState) -> Output) -> Output {
        let mutex = LockStripes.promises.mutex(for: self)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&storage)
    }

    /// Makes a promise already fulfilled with `value`.
    public convenience init(_ value: Value) {
        self.init(fulfilled: value)
    }

    /// Makes a promise already rejected with `error`.
    public convenience init(error: any Error) {
        self.init(rejected: error)
    }

    /// Makes a pending promise and hands its resolver to `body`, which settles it now or later.
    /// A throw from `body` rejects the promise.
    ///
    /// ```swift
    /// let answer = Promise<Int> { resolver in
    ///     DispatchQueue.global().async { resolver.fulfill(42) }
    /// }
    /// ```
    public convenience init(_ body: (Resolver) throws -> Void) {
        self.init(source: nil)
        let resolver = Resolver(self)
        do { try body(resolver) } catch { resolver.reject(error) }
    }

    /// Makes a pending promise and its resolver.
    ///
    /// - Returns: the promise and the resolver that settles it. If the resolver is released
    ///   without settling, the promise is rejected with ``DepotError/Code/abandoned``.
    public static func pending() -> (promise: Promise<Value>, resolver: Resolver) {
        let promise = Promise<Value>(source: nil)
        return (promise, Resolver(promise))
    }

    // MARK: Observing

    /// The outcome, or nil while pending.
    public var result: Result<Value, any Error>? {
        let (phase, error) = withState { ($0.phase, $0.error) }
        switch phase {
        case .pending: return nil
        case .fulfilled: return .success(storedValue)  // written before the phase, never again
        case .rejected: return .failure(error!)
        }
    }

    /// True until the promise settles.
    public var isPending: Bool { withState { $0.phase == .pending } }

    /// True when the promise settled with a value.
    public var isFulfilled: Bool { withState { $0.phase == .fulfilled } }

    /// True when the promise settled with an error (cancellation included).
    public var isRejected: Bool { withState { $0.phase == .rejected } }

    /// True when the promise was rejected with a cancellation error.
    public var isCancelled: Bool { withState { $0.error?.isDepotCancellation ?? false } }

    // MARK: Settling

    /// Settles the promise if it is pending and schedules its callbacks. Returns false if it was
    /// already settled (the new outcome is ignored).
    @discardableResult
    func settle(_ result: Result<Value, any Error>, drain: inout Drain?) -> Bool {
        switch result {
        case .success(let value): return fulfill(value, drain: &drain)
        case .failure(let error): return reject(error, drain: &drain)
        }
    }

    /// Settles from outside any drain (a resolver, a timer, a task).
    @discardableResult
    func settle(_ result: Result<Value, any Error>) -> Bool {
        var drain: Drain? = nil
        return settle(result, drain: &drain)
    }

    /// Fulfils the promise if it is pending and schedules its callbacks; false if already settled.
    @discardableResult
    func fulfill(_ value: Value, drain: inout Drain?) -> Bool {
        fulfill(existential: value, drain: &drain)
    }

    /// Fulfils with a value already wrapped (a `Value` inside).
    @discardableResult
    func fulfill(existential value: any Sendable, drain: inout Drain?) -> Bool {
        let taken: (first: (any Job)?, rest: [any Job])? = withState { state in
            guard state.phase == .pending else { return nil }
            fulfilledValue = value
            state.phase = .fulfilled
            return state.takeJobs()
        }
        guard let taken else { return false }
        schedule(taken, drain: &drain)
        return true
    }

    /// Rejects the promise if it is pending and schedules its callbacks; false if already settled.
    @discardableResult
    func reject(_ error: any Error, drain: inout Drain?) -> Bool {
        let taken: (first: (any Job)?, rest: [any Job])? = withState { state in
            guard state.phase == .pending else { return nil }
            state.error = error
            state.phase = .rejected
            return state.takeJobs()
        }
        guard let taken else { return false }
        schedule(taken, drain: &drain)
        return true
    }

    /// Settles like `other`, which has settled.
    func settle(like other: Promise<Value>, drain: inout Drain?) {
        let (phase, error) = other.withState { ($0.phase, $0.error) }
        switch phase {
        case .pending: preconditionFailure("adopted promise ran before settling")
        case .fulfilled: fulfill(existential: other.fulfilledValue!, drain: &drain)
        case .rejected: reject(error!, drain: &drain)
        }
    }

    /// Schedules the jobs a settle took, in the order they were attached. With more than one,
    /// ``PromiseState/dispatching`` is set until they are all scheduled: a job attached meanwhile
    /// (by one of them, already running on another thread) waits in the list and is scheduled
    /// here, after them, so it cannot overtake them on their queue (Promises/A+ 2.2.6).
    private func schedule(_ jobs: (first: (any Job)?, rest: [any Job]), drain: inout Drain?) {
        if let first = jobs.first { Drain.schedule(first, in: &drain) }
        guard !jobs.rest.isEmpty else { return }
        for job in jobs.rest { Drain.schedule(job, in: &drain) }
        while true {
            let late: [any Job] = withState { state in
                let late = state.rest
                state.rest = []
                if late.isEmpty { state.dispatching = false }
                return late
            }
            if late.isEmpty { return }
            for job in late { Drain.schedule(job, in: &drain) }
        }
    }

    /// Runs `job` once this promise settles: now (scheduled, never inline) if it already has.
    func subscribe(_ job: any Job, drain: inout Drain?) {
        let settled: Bool = withState { state in
            guard state.phase == .pending else {
                guard state.dispatching else { return true }
                state.rest.append(job)  // the settling thread schedules it after the jobs before it
                return false
            }
            if state.first == nil && state.rest.isEmpty {
                state.first = job
            } else {
                state.rest.append(job)
            }
            return false
        }
        if settled { Drain.schedule(job, in: &drain) }
    }

    /// Subscribes from outside any drain: a settled promise schedules the job on its queue.
    func subscribe(_ job: any Job) {
        var drain: Drain? = nil
        subscribe(job, drain: &drain)
    }

    /// Calls `body` with the outcome, on `queue` (or inline where the promise settles, when nil).
    func whenSettled(on queue: DispatchQueue?, _ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        subscribe(Callback(queue: queue, source: self, body: body))
    }

    // MARK: Cancelling

    /// Registers work to stop if this promise is cancelled while pending (the URL task, the
    /// timer, the forward). Runs `handler` at once if the promise is already cancelled; never if it
    /// settled otherwise.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow: Bool = withState { state in
            guard state.phase != .pending else {
                state.cancelHandlers.append(handler)
                return false
            }
            return state.error?.isDepotCancellation ?? false
        }
        if runNow { handler() }
    }

    /// Cancels the promise: if it is pending, rejects it with ``DepotError/cancelled``, runs the
    /// cancellation handlers its creator registered (so the work underneath stops), and cancels
    /// what it waits on (the promise it was chained from, or the one its `then` body returned).
    /// Promises chained from it are rejected with the same cancellation error. Does nothing to a
    /// settled promise.
    public func cancel() {
        var work: [any CancellableNode] = [self]
        while let node = work.popLast() {
            node.cancelNode(into: &work)
        }
    }
}

/// Something `cancel()` walks through iteratively, so cancelling the tail of a million-step chain
/// does not recurse.
protocol CancellableNode: AnyObject, Sendable {
    func cancelNode(into work: inout [any CancellableNode])
}

extension Promise: CancellableNode {
    func cancelNode(into work: inout [any CancellableNode]) {
        let taken: (source: (any CancellableNode)?, handlers: [@Sendable () -> Void])? = withState { state in
            guard state.phase == .pending, !state.uncancellable else { return nil }
            let taken = (state.source, state.cancelHandlers)
            state.source = nil
            state.cancelHandlers = []
            return taken
        }
        guard let taken else { return }
        for handler in taken.handlers { handler() }
        var drain: Drain? = nil
        reject(DepotError.cancelled, drain: &drain)
        if let source = taken.source { work.append(source) }
    }
}

/// Where a promise is in its life.
enum Phase: UInt8 {
    case pending, fulfilled, rejected
}

/// The mutable part of a promise, guarded by its lock stripe. Not generic (the value lives in
/// ``Promise/fulfilledValue``), so unspecialized code reads and writes it without metadata lookups.
struct PromiseState {
    var phase = Phase.pending
    /// The error, once rejected.
    var error: (any Error)?
    var first: (any Job)?
    var rest: [any Job] = []
    /// What this promise waits on (a parent or an adopted promise); cancelling reaches it.
    var source: (any CancellableNode)?
    /// True once a `then` node waits on the promise its body returned.
    var adopting = false
    /// Work to stop when this promise is cancelled while pending.
    var cancelHandlers: [@Sendable () -> Void] = []
    /// Guarantees cannot be cancelled: they never fail.
    var uncancellable = false
    /// True while a settle schedules more than one job: a job attached meanwhile goes into
    /// `rest`, for the settling thread to schedule after them.
    var dispatching = false

    /// Takes the waiting jobs and what the settled promise no longer needs.
    mutating func takeJobs() -> (first: (any Job)?, rest: [any Job]) {
        let jobs = (first, rest)
        dispatching = !rest.isEmpty
        first = nil
        rest = []
        source = nil
        cancelHandlers = []
        return jobs
    }
}

/// Library-wide, immutable defaults.
public enum PromiseDefaults {
    /// The queue callbacks run on when no `on:` is given: a global concurrent queue. Never the main
    /// queue, so command-line programs and tests on Linux need no run loop.
    public static let queue: DispatchQueue = .global(qos: .default)
}
