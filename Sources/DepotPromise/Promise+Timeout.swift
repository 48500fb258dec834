import Dispatch

extension Promise {
    /// Settles like this promise, or rejects with ``DepotError/Code/timeout`` if it has not settled
    /// within `seconds`; on timeout this promise is cancelled first (so the work underneath has been
    /// told to stop, and its cancel handlers have run, by the time the timeout is observed), then
    /// the returned promise rejects. A NaN or negative `seconds` is 0; an infinite one is capped
    /// at ``maximumDispatchDelay``.
    public func timeout(seconds: Double) -> Promise<Value> {
        let (result, resolver) = Promise<Value>.pending()
        // Whoever takes the resolver settles `result`: this promise's outcome, or the timeout. The
        // timeout takes it before it cancels this promise, so the cancellation it causes (or a late
        // answer) no longer reaches `result`; and the slot, not the timer, holds the resolver, so a
        // settled promise is not kept alive until the deadline.
        let slot = LockedValue<Promise<Value>.Resolver?>(resolver)
        PromiseDefaults.queue.asyncAfter(deadline: .now() + boundedDelay(seconds)) { [weak self] in
            guard let resolver = slot.withLock({ taking(&$0) }) else { return }
            self?.cancel()
            resolver.reject(DepotError(.timeout, "no result within \(seconds) s"))
        }
        whenSettled(on: nil) { outcome in slot.withLock { taking(&$0) }?.resolve(outcome) }
        result.onCancel { [weak self] in self?.cancel() }
        return result
    }

    /// Settles like this promise, or rejects with ``DepotError/Code/timeout`` after `duration`.
    public func timeout(_ duration: Duration) -> Promise<Value> {
        timeout(seconds: duration.seconds)
    }
}

/// The value of `slot`, leaving nil.
private func taking<Wrapped>(_ slot: inout Wrapped?) -> Wrapped? {
    defer { slot = nil }
    return slot
}
