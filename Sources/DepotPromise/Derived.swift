import Dispatch

/// What a chained step's body produced: an outcome now, or a promise to adopt.
enum Step<Value: Sendable> {
    case result(Result<Value, any Error>)
    case adopt(Promise<Value>)
}

/// A promise derived from a parent by a step (`then`, `map`, `catch`…). It is its own job: when the
/// parent settles, the node is scheduled on its queue, runs its body on the parent's outcome, and
/// settles itself — or, for `then`, adopts the promise the body returned. One allocation for the
/// node and one for the body's closure: nothing else per step.
// @unchecked: the inherited lock stripe guards `storage`; `queue` and `body` are lets.
final class Derived<Input: Sendable, Value: Sendable>: Promise<Value>, Job,
    @unchecked Sendable  // @unchecked: a LockStripes mutex guards `storage`
{
    let queue: DispatchQueue?
    let body: @Sendable (Result<Input, any Error>) -> Step<Value>

    init(
        parent: Promise<Input>, queue: DispatchQueue?,
        body: @escaping @Sendable (Result<Input, any Error>) -> Step<Value>
    ) {
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
    /// Chains a step that runs on `queue` once this promise settles.
    func derive<Output: Sendable>(
        on queue: DispatchQueue?,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Step<Output>
    ) -> Promise<Output> {
        let node = Derived(parent: self, queue: queue ?? PromiseDefaults.queue, body: body)
        subscribe(node)
        return node
    }
}
