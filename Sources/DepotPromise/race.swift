/// Settles like the first of `promises` to settle, fulfilled or rejected. Cancelling the result
/// cancels every input. An empty array (easily built from data, such as a server's empty list)
/// rejects with ``DepotError/Code/invalidRequest``: there is nothing to wait for.
public func race<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<Value> {
    guard !promises.isEmpty else {
        return Promise(error: DepotError(.invalidRequest, "race needs at least one promise; it was given none"))
    }
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
