import Dispatch

/// Which errors `catch` and `recover` handle.
public enum CatchPolicy: Sendable {
    /// Every error, cancellation included.
    case allErrors
    /// Every error except cancellation, which passes on untouched.
    case allErrorsExceptCancellation
}

extension Promise {
    /// Runs `body` with the value and adopts the promise it returns. Errors skip `body` and pass on.
    ///
    /// ```swift
    /// messages.create(["text": "hi"]).then { messages.read($0.id) }
    /// ```
    /// - Parameters:
    ///   - queue: where `body` runs; ``PromiseDefaults/queue`` when nil.
    ///   - body: the next step; a throw rejects the returned promise.
    /// - Returns: a promise of the promise `body` returns.
    public func then<Output: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<Output>
    ) -> Promise<Output> {
        derive(on: queue, .then(body))
    }

    /// Transforms the value; a throw rejects the returned promise. Errors skip `body` and pass on.
    public func map<Output: Sendable>(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Output
    ) -> Promise<Output> {
        derive(on: queue, .map(body))
    }

    /// Runs a side effect with the value and ends the value chain (`Promise<Void>`).
    @discardableResult
    public func done(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        derive(on: queue, .done(body))
    }

    /// Runs a side effect with the value and passes the value on.
    public func get(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        map(on: queue) { value in
            try body(value)
            return value
        }
    }

    /// Observes an error. The returned guarantee fulfils once the promise has settled and `body`
    /// (if it ran) has returned.
    ///
    /// - Parameters:
    ///   - queue: where `body` runs.
    ///   - policy: `.allErrors` (the default) or `.allErrorsExceptCancellation` to skip cancellations.
    ///   - body: called with the error.
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue? = nil,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Guarantee<Void> {
        Guarantee(derive(on: queue, .catch(policy, body)))
    }

    /// Turns an error into a new promise; a throw rejects with the thrown error.
    public func recover(
        on queue: DispatchQueue? = nil,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(on: queue) { result in
            switch result {
            case .success:
                return .result(result)
            case .failure(let error):
                if policy == .allErrorsExceptCancellation && error.isDepotCancellation { return .result(result) }
                do { return .adopt(try body(error)) } catch { return .result(.failure(error)) }
            }
        }
    }

    /// Turns every error into a value: the result cannot fail, so it is a ``Guarantee``.
    public func recover(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (any Error) -> Value
    ) -> Guarantee<Value> {
        Guarantee(
            derive(on: queue) { result in
                switch result {
                case .success: return .result(result)
                case .failure(let error): return .result(.success(body(error)))
                }
            }
        )
    }

    /// Runs `body` on either outcome and passes the outcome on.
    public func ensure(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        derive(on: queue) { result in
            body()
            return .result(result)
        }
    }

    /// Runs `body` on either outcome, at the end of a chain.
    public func finally(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        _ = ensure(on: queue, body)
    }

    /// Forgets the value: a `Promise<Void>` that settles with this one.
    public func asVoid() -> Promise<Void> {
        derive(on: nil) { result in .result(result.map { _ in () }) }
    }

    /// Runs `body` with the outcome, whatever it is, and passes it on.
    public func tap(
        on queue: DispatchQueue? = nil,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        derive(on: queue) { result in
            body(result)
            return .result(result)
        }
    }
}
