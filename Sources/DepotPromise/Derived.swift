import Dispatch

/// What a chained step's body produced: an outcome now, or a promise to adopt.
enum Step<Value: Sendable> {
    case result(Result<Value, any Error>)
    case adopt(Promise<Value>)
}

/// What a derived promise runs on its parent's outcome. The common verbs keep the caller's closure
/// as it is, so a step costs one allocation (its node) plus whatever that closure captures; the
/// other verbs wrap it in a ``step`` closure.
enum Body<Input: Sendable, Value: Sendable>: Sendable {
    /// `map`: transforms the value; errors pass on.
    case map(@Sendable (Input) throws -> Value)
    /// `done`: a side effect on the value; only for `Value == Void`.
    case done(@Sendable (Input) throws -> Void)
    /// `then`: adopts the promise the closure returns; errors pass on.
    case then(@Sendable (Input) throws -> Promise<Value>)
    /// `catch`: observes an error the policy lets through; only for `Value == Void`.
    case `catch`(CatchPolicy, @Sendable (any Error) -> Void)
    /// Anything else: the closure sees the whole outcome.
    case step(@Sendable (Result<Input, any Error>) -> Step<Value>)
}

/// A promise derived from a parent by a step (`then`, `map`, `catch`…). It is its own job: when the
/// parent settles, the node is scheduled on its queue, runs its body on the parent's outcome, and
/// settles itself — or, for `then`, adopts the promise the body returned. One allocation for the
/// node; `map`, `done`, `then` and `catch` keep the caller's closure without wrapping it.
// @unchecked: the inherited lock stripe guards `storage`; `queue` and `body` are lets.
final class Derived<Input: Sendable, Value: Sendable>: Promise<Value>, Job,
    @unchecked Sendable  // @unchecked: a LockStripes mutex guards `storage`
{
    let queue: DispatchQueue?
    let queueKey: UInt
    let body: Body<Input, Value>
    /// The parent, typed, without a reference count: `storage.source` owns it until the node runs
    /// (or settles), and ``run(drain:)`` reads it only while holding that owner. Reading it costs
    /// no generic metadata lookup, where casting `source` back to `Promise<Input>` would.
    private unowned(unsafe) let parent: Promise<Input>

    init(parent: Promise<Input>, queue: DispatchQueue?, body: Body<Input, Value>) {
        self.queue = queue
        queueKey = queue.map(QueueIdentity.key) ?? 0
        self.body = body
        self.parent = parent
        super.init(source: parent)
    }

    /// Runs the step. The source is moved out of the state, not copied (no reference count traffic
    /// on the parent, whose settling thread touches it too): it has settled, so a cancel arriving
    /// while the body runs has nothing to reach upstream; a promise the body returns becomes the
    /// source in ``adopt(_:drain:)``.
    func run(drain: inout Drain?) {
        let taken: (source: any CancellableNode, adopting: Bool)? = withState { state in
            guard state.phase == .pending, let source = state.source.take() else { return nil }
            return (source, state.adopting)
        }
        guard let taken else { return }  // cancelled while waiting to run
        if taken.adopting {
            settle(like: unsafeDowncast(taken.source, to: Promise<Value>.self), drain: &drain)
            return
        }
        withExtendedLifetime(taken.source) { runBody(drain: &drain) }
    }

    /// Runs the body on the parent's outcome; the caller keeps the parent alive.
    ///
    /// A fulfilled parent is read without its lock: ``Promise/fulfilledValue`` is written once,
    /// before the parent's phase becomes `.fulfilled`, outside the locked state, and the hand-over
    /// that scheduled this job (the parent's lock, when it was found settled or settled on this
    /// thread, or the mailbox's) orders that write before this read. A lock less per step, on a
    /// stripe the settling thread has just held. A rejected parent is read under its lock.
    private func runBody(drain: inout Drain?) {
        let (phase, error): (Phase, (any Error)?) =
            parent.fulfilledValue != nil ? (.fulfilled, nil) : parent.withState { ($0.phase, $0.error) }
        precondition(phase != .pending, "chained step ran before its parent settled")
        // The common verbs read the parent's value and settle directly: no `Result` or `Step` is
        // built, so unspecialized code pays no generic metadata lookup for them.
        switch body {
        case .map(let transform):
            guard phase == .fulfilled else {
                reject(error!, drain: &drain)
                return
            }
            do { fulfill(try transform(parent.storedValue), drain: &drain) } catch { reject(error, drain: &drain) }
        case .done(let effect):
            guard phase == .fulfilled else {
                reject(error!, drain: &drain)
                return
            }
            do {
                try effect(parent.storedValue)
                fulfill(existential: (), drain: &drain)  // Value is Void: no cast
            } catch {
                reject(error, drain: &drain)
            }
        case .then(let next):
            guard phase == .fulfilled else {
                reject(error!, drain: &drain)
                return
            }
            do { adopt(try next(parent.storedValue), drain: &drain) } catch { reject(error, drain: &drain) }
        case .catch(let policy, let observe):
            if let error, policy == .allErrors || !error.isDepotCancellation { observe(error) }
            fulfill(existential: (), drain: &drain)  // Value is Void: no cast
        case .step(let step):
            runStep(step, fulfilled: phase == .fulfilled, error: error, drain: &drain)
        }
    }

    /// Runs a closure that sees the whole outcome. Kept out of ``runBody(drain:)``: unspecialized
    /// code looks up the metadata of every generic type a function uses (`Result`, `Step`) on
    /// entry, whichever branch runs.
    @inline(never)
    private func runStep(
        _ step: @Sendable (Result<Input, any Error>) -> Step<Value>, fulfilled: Bool, error: (any Error)?,
        drain: inout Drain?
    ) {
        switch step(fulfilled ? .success(parent.storedValue) : .failure(error!)) {
        case .result(let result): settle(result, drain: &drain)
        case .adopt(let inner): adopt(inner, drain: &drain)
        }
    }

    /// Waits on `inner`, the promise a `then` body returned, and settles like it.
    private func adopt(_ inner: Promise<Value>, drain: inout Drain?) {
        guard inner !== self else {
            reject(DepotError(.invalidRequest, "a then body returned the promise it produces"), drain: &drain)
            return
        }
        let adopted: Bool = withState { state in
            guard state.phase == .pending else { return false }
            state.source = inner
            state.adopting = true
            return true
        }
        if adopted {
            inner.subscribe(self, drain: &drain)
        } else {
            inner.cancel()  // we were cancelled while the body ran
        }
    }
}

extension Promise {
    /// Chains a step that runs `body` on `queue` (``PromiseDefaults/queue`` when nil) once this
    /// promise settles.
    func derive<Output: Sendable>(on queue: DispatchQueue?, _ body: Body<Value, Output>) -> Promise<Output> {
        let node = Derived(parent: self, queue: queue ?? PromiseDefaults.queue, body: body)
        subscribe(node)
        return node
    }

    /// Chains a step whose closure sees the whole outcome.
    func derive<Output: Sendable>(
        on queue: DispatchQueue?,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Step<Output>
    ) -> Promise<Output> {
        derive(on: queue, .step(body))
    }
}
