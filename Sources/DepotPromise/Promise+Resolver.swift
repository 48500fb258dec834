extension Promise {
    /// Settles a pending ``Promise``. The first call to `fulfill`, `reject` or `resolve` wins; later
    /// calls are ignored. Releasing the last reference to an unsettled resolver rejects the promise
    /// with ``DepotError/Code/abandoned``, so nothing waits forever on work that was dropped.
    public final class Resolver: Sendable {
        /// The promise this resolver settles.
        public let promise: Promise<Value>

        init(_ promise: Promise<Value>) { self.promise = promise }

        deinit {
            // Checked first so a settled promise (the usual case) costs no error allocation.
            guard promise.isPending else { return }
            // A guarantee's promise cannot fail: released unfulfilled, it stays pending (as a
            // function that never returns would), documented on ``Guarantee``.
            guard !promise.withState({ $0.uncancellable }) else { return }
            var drain: Drain? = nil
            promise.reject(
                DepotError(.abandoned, "the promise's resolver was released without settling it"), drain: &drain)
        }

        /// Fulfils the promise with `value`.
        public func fulfill(_ value: Value) {
            var drain: Drain? = nil
            promise.fulfill(value, drain: &drain)
        }

        /// Rejects the promise with `error`.
        public func reject(_ error: any Error) {
            var drain: Drain? = nil
            promise.reject(error, drain: &drain)
        }

        /// Settles the promise with `result`.
        public func resolve(_ result: Result<Value, any Error>) { promise.settle(result) }

        /// Registers work to stop if the promise is cancelled while pending.
        public func onCancel(_ handler: @escaping @Sendable () -> Void) { promise.onCancel(handler) }

        /// True once the promise has settled (for example, cancelled by its consumer).
        public var isSettled: Bool { !promise.isPending }
    }
}

extension Promise.Resolver where Value == Void {
    /// Fulfils a `Promise<Void>`.
    public func fulfill() { fulfill(()) }
}

extension Promise where Value == Void {
    /// Makes a `Promise<Void>` that is already fulfilled.
    public convenience init() { self.init(()) }
}
