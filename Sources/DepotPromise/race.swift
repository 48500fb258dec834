/// Settles like the first of `promises` to settle, fulfilled or rejected. Cancelling the result
/// cancels every input.
///
/// - Precondition: `promises` is not empty.
public func race<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<Value> {
    precondition(!promises.isEmpty, "race needs at least one promise")
    let (result, resolver) = Promise<Value>.pending()
    for promise in promises {
        promise.whenSettled(on: nil) { resolver.resolve($0) }
    }
    result.onCancel { for promise in promises { promise.cancel() } }
    return result
}

/// Settles like the first of the given promises to settle.
public func race<Value: Sendable>(_ first: Promise<Value>, _ others: Promise<Value>...) -> Promise<Value> {
    race([first] + others)
}
