import Dispatch

extension Promise {
    /// Settles like this promise, or rejects with ``DepotError/Code/timeout`` if it has not settled
    /// within `seconds`; on timeout this promise is cancelled, so the work underneath stops.
    public func timeout(seconds: Double) -> Promise<Value> {
        let (result, resolver) = Promise<Value>.pending()
        PromiseDefaults.queue.asyncAfter(deadline: .now() + max(0, seconds)) { [weak self, weak result] in
            guard let result else { return }
            if result.settle(.failure(DepotError(.timeout, "no result within \(seconds) s"))) {
                self?.cancel()
            }
        }
        whenSettled(on: nil) { resolver.resolve($0) }
        result.onCancel { [weak self] in self?.cancel() }
        return result
    }

    /// Settles like this promise, or rejects with ``DepotError/Code/timeout`` after `duration`.
    public func timeout(_ duration: Duration) -> Promise<Value> {
        timeout(seconds: duration.seconds)
    }
}
