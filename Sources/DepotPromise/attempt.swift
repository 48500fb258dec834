/// Runs `body` and, if its promise rejects, runs it again after `delayBeforeRetry`, up to
/// `maximumRetryCount` more times. Cancellation is never retried; the last error is the result's.
///
/// ```swift
/// let message = attempt(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(200)) {
///     messages.read(id)
/// }
/// ```
/// - Parameters:
///   - maximumRetryCount: how many times to retry after the first attempt.
///   - delayBeforeRetry: the pause between attempts.
///   - shouldRetry: decides whether an error is worth another attempt (default: all but cancellation).
///   - body: makes one attempt.
public func attempt<Value: Sendable>(
    maximumRetryCount: Int = 3,
    delayBeforeRetry: Duration = .seconds(2),
    shouldRetry: @escaping @Sendable (any Error) -> Bool = { !$0.isDepotCancellation },
    _ body: @escaping @Sendable () -> Promise<Value>
) -> Promise<Value> {
    precondition(maximumRetryCount >= 0, "maximumRetryCount must not be negative")
    @Sendable func attempt(_ retriesLeft: Int) -> Promise<Value> {
        body().recover(policy: .allErrorsExceptCancellation) { error -> Promise<Value> in
            guard retriesLeft > 0, shouldRetry(error) else { throw error }
            return after(delayBeforeRetry).then { attempt(retriesLeft - 1) }
        }
    }
    return attempt(maximumRetryCount)
}
