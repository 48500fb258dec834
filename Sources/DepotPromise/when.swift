/// Fulfils with every value, in order, once all `promises` fulfil; rejects as soon as one rejects.
/// Cancelling the result cancels every input still pending.
///
/// ```swift
/// let texts = try await when(fulfilled: ids.map { messages.read($0) }).value
/// ```
public func when<Value: Sendable>(fulfilled promises: [Promise<Value>]) -> Promise<[Value]> {
    guard !promises.isEmpty else { return Promise([]) }
    let (result, resolver) = Promise<[Value]>.pending()
    let slots = LockedValue<(values: [Value?], remaining: Int)>(
        (Array(repeating: nil, count: promises.count), promises.count))
    for (index, promise) in promises.enumerated() {
        promise.whenSettled(on: nil) { outcome in
            switch outcome {
            case .failure(let error):
                resolver.reject(error)
            case .success(let value):
                let done: [Value]? = slots.withLock { slots in
                    slots.values[index] = value
                    slots.remaining -= 1
                    return slots.remaining == 0 ? slots.values.map { $0! } : nil
                }
                if let done { resolver.fulfill(done) }
            }
        }
    }
    result.onCancel { for promise in promises { promise.cancel() } }
    return result
}

/// Fulfils with both values once both fulfil; rejects as soon as one rejects.
public func when<A: Sendable, B: Sendable>(fulfilled a: Promise<A>, _ b: Promise<B>) -> Promise<(A, B)> {
    when(fulfilled: [a.asVoid(), b.asVoid()]).map { _ in (try a.result!.get(), try b.result!.get()) }
}

/// Fulfils with the three values once all fulfil; rejects as soon as one rejects.
public func when<A: Sendable, B: Sendable, C: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>
) -> Promise<(A, B, C)> {
    when(fulfilled: [a.asVoid(), b.asVoid(), c.asVoid()]).map { _ in
        (try a.result!.get(), try b.result!.get(), try c.result!.get())
    }
}

/// Fulfils with the four values once all fulfil; rejects as soon as one rejects.
public func when<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>
) -> Promise<(A, B, C, D)> {
    when(fulfilled: [a.asVoid(), b.asVoid(), c.asVoid(), d.asVoid()]).map { _ in
        (try a.result!.get(), try b.result!.get(), try c.result!.get(), try d.result!.get())
    }
}

/// Fulfils with every outcome, in order, once all `promises` have settled; never fails.
public func when<Value: Sendable>(resolved promises: [Promise<Value>]) -> Guarantee<[Result<Value, any Error>]> {
    guard !promises.isEmpty else { return Guarantee([]) }
    let (result, resolver) = Promise<[Result<Value, any Error>]>.pending()
    let slots = LockedValue<(results: [Result<Value, any Error>?], remaining: Int)>(
        (Array(repeating: nil, count: promises.count), promises.count)
    )
    for (index, promise) in promises.enumerated() {
        promise.whenSettled(on: nil) { outcome in
            let done: [Result<Value, any Error>]? = slots.withLock { slots in
                slots.results[index] = outcome
                slots.remaining -= 1
                return slots.remaining == 0 ? slots.results.map { $0! } : nil
            }
            if let done { resolver.fulfill(done) }
        }
    }
    return Guarantee(result)
}
