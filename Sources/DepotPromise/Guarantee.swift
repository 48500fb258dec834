import Dispatch

/// A promise that cannot fail: what ``Promise/recover(on:_:)`` that handles every error returns,
/// and what ``after(seconds:)`` returns.
///
/// A guarantee made with `Guarantee { fulfil in … }` whose fulfil function is released
/// without being called stays pending for ever, as a function that never returns would: it never
/// traps and never fails (unlike a ``Promise``, which is rejected with
/// ``DepotError/Code/abandoned``). Use a ``Promise`` for work that can be dropped.
///
/// ```swift
/// let count = fetchCount().recover { _ in 0 }   // Guarantee<Int>
/// print(await count.value)
/// ```
public final class Guarantee<Value: Sendable>: Sendable {
    /// The underlying promise; it is only ever fulfilled, and ``Promise/cancel()`` does not reach it.
    public let promise: Promise<Value>

    init(_ promise: Promise<Value>) {
        promise.withState { $0.uncancellable = true }
        self.promise = promise
    }

    /// Makes a guarantee already fulfilled with `value`.
    public convenience init(_ value: Value) { self.init(Promise(value)) }

    /// Makes a pending guarantee and hands `body` the function that fulfils it.
    public convenience init(_ body: (@escaping @Sendable (Value) -> Void) -> Void) {
        let (promise, resolver) = Promise<Value>.pending()
        self.init(promise)
        body { resolver.fulfill($0) }
    }

    /// The value, once available.
    public var value: Value {
        get async {
            // Unreachable from data: a guarantee's promise is uncancellable, is never rejected by
            // its released resolver, and every guarantee built on another is fulfilled by it.
            do { return try await promise.value } catch {
                preconditionFailure("internal: a Guarantee failed: \(error)")
            }
        }
    }

    /// The value, or nil while pending.
    public var result: Value? {
        if case .success(let value) = promise.result { return value }
        return nil
    }

    /// True until the guarantee is fulfilled.
    public var isPending: Bool { promise.isPending }

    /// Transforms the value.
    public func map<Output: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) -> Output
    ) -> Guarantee<Output> {
        Guarantee<Output>(promise.map(on: queue, body))
    }

    /// Runs `body` with the value and adopts the guarantee it returns.
    public func then<Output: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) -> Guarantee<Output>
    ) -> Guarantee<Output> {
        Guarantee<Output>(promise.then(on: queue) { body($0).promise })
    }

    /// Runs `body` with the value and adopts the promise it returns (which may fail).
    public func then<Output: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<Output>
    ) -> Promise<Output> {
        promise.then(on: queue, body)
    }

    /// Runs a side effect with the value.
    @discardableResult
    public func done(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) -> Guarantee<Void> {
        Guarantee<Void>(promise.done(on: queue, body))
    }

    /// Runs a side effect with the value and passes the value on.
    public func get(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) -> Void
    ) -> Guarantee<Value> {
        Guarantee(promise.get(on: queue, body))
    }

    /// Runs `body` once the guarantee is fulfilled.
    public func finally(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        promise.finally(on: queue, body)
    }
}
