extension Promise {
    /// Makes a promise of what `operation` returns; a throw rejects it. Cancelling the promise
    /// cancels the task running `operation`.
    ///
    /// ```swift
    /// let promise = Promise { try await fetchMessage() }
    /// ```
    public convenience init(_ operation: @escaping @Sendable () async throws -> Value) {
        self.init(source: nil)
        let task = Task { [self] in
            do {
                settle(.success(try await operation()))
            } catch {
                settle(.failure(error is CancellationError ? DepotError.cancelled : error))
            }
        }
        onCancel { task.cancel() }
    }

    /// The value, once the promise is fulfilled.
    ///
    /// - Throws: the error the promise was rejected with. Cancelling the awaiting task cancels the
    ///   promise (and the work underneath) and throws ``DepotError/cancelled``.
    public var value: Value {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    whenSettled(on: nil) { continuation.resume(with: $0) }
                }
            } onCancel: {
                self.cancel()
            }
        }
    }

    /// Waits for the promise to settle and returns its outcome; never throws.
    public var settledResult: Result<Value, any Error> {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
                whenSettled(on: nil) { continuation.resume(returning: $0) }
            }
        }
    }
}
