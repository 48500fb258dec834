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

    /// Runs the body on `input`.
    func callAsFunction(_ input: Result<Input, any Error>) -> Step<Value> {
        switch self {
        case .map(let transform):
            switch input {
            case .success(let value):
                do { return .result(.success(try transform(value))) } catch { return .result(.failure(error)) }
            case .failure(let error):
                return .result(.failure(error))
            }
        case .done(let effect):
            switch input {
            case .success(let value):
                do {
                    try effect(value)
                    return .result(.success(() as! Value))
                } catch {
                    return .result(.failure(error))
                }
            case .failure(let error):
                return .result(.failure(error))
            }
        case .then(let next):
            switch input {
            case .success(let value):
                do { return .adopt(try next(value)) } catch { return .result(.failure(error)) }
            case .failure(let error):
                return .result(.failure(error))
            }
        case .catch(let policy, let observe):
            if case .failure(let error) = input, policy == .allErrors || !error.isDepotCancellation {
                observe(error)
            }
            return .result(.success(() as! Value))
        case .step(let body):
            return body(input)
        }
    }
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
    let body: Body<Input, Value>

    init(parent: Promise<Input>, queue: DispatchQueue?, body: Body<Input, Value>) {
        self.queue = queue
        self.body = body
        super.init(result: nil, source: parent)
    }

    func run(drain: inout Drain?) {
        let taken: (source: any CancellableNode, adopting: Bool)? = withState { state in
            guard state.result == nil, let source = state.source else { return nil }
            return (source, state.adopting)
        }
        guard let taken else { return }  // cancelled while waiting to run
        if taken.adopting {
            let inner = unsafeDowncast(taken.source, to: Promise<Value>.self)
            guard let result = inner.result else { preconditionFailure("adopted promise ran before settling") }
            settle(result, drain: &drain)
            return
        }
        let parent = unsafeDowncast(taken.source, to: Promise<Input>.self)
        guard let input = parent.result else { preconditionFailure("chained step ran before its parent settled") }
        switch body(input) {
        case .result(let result):
            settle(result, drain: &drain)
        case .adopt(let inner):
            guard inner !== self else {
                settle(
                    .failure(DepotError(.invalidRequest, "a then body returned the promise it produces")), drain: &drain
                )
                return
            }
            let adopted: Bool = withState { state in
                guard state.result == nil else { return false }
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
