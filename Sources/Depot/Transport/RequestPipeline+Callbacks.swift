import Foundation

/// The pipeline driven by a transport's callbacks, for ``Networking/send(_:completion:)``: no task
/// per request. Only what needs waiting (interceptors, which are async, and the pause before a
/// retry) runs in a task, through the same code as ``RequestPipeline/send(_:attempt:)``.
extension RequestPipeline {
    /// One attempt, started at once: send `request` to `url` (`summary` names it in errors), waiting
    /// at most `timeout`, and call `completion` once with any answer, 2xx or not, or the error when
    /// there is none. Returns the attempt under way, to cancel it.
    package typealias StartAttempt =
        @Sendable (
            _ request: NetworkRequest, _ url: URL, _ summary: DepotError.Request, _ timeout: Duration,
            _ completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
        ) -> any NetworkCall

    /// Sends `request` through the pipeline, each attempt started by `attempt`; calls `completion`
    /// once, with what ``send(_:attempt:)`` would return or throw.
    package func send(
        _ request: NetworkRequest,
        attempt: @escaping StartAttempt,
        completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        guard configuration.interceptors.isEmpty else {
            // Interceptors adapt requests asynchronously: the whole exchange runs in a task.
            let task = Task {
                do {
                    let response = try await send(
                        request, attempt: { try await Self.awaiting(attempt, $0, url: $1, timeout: $2) })
                    completion(.success(response))
                } catch {
                    completion(.failure(error))
                }
            }
            return TaskCall(task: task)
        }
        let prepared: NetworkRequest
        let url: URL
        let summary: DepotError.Request
        do {
            (prepared, url, summary) = try prepareWithoutInterceptors(request)
        } catch {
            completion(.failure(Self.neverSent(error)))
            return CallSlot()
        }
        guard configuration.retryPolicy.maximumAttempts > 1 else {
            // No retry: the attempt's own handle cancels the whole call.
            return startFirst(prepared, url: url, summary: summary, attempt: attempt) { result in
                completion(result.mapError { $0 })
            }
        }
        let slot = CallSlot()
        let pipeline = self
        let first = startFirst(prepared, url: url, summary: summary, attempt: attempt) { result in
            switch result {
            case .success(let response):
                completion(.success(response))
            case .failure(var failure):
                // The same rule as `run`'s: no pause outlasts the request's timeout.
                let timeout = prepared.effectiveTimeout(session: pipeline.configuration.timeout)
                guard let delay = pipeline.retryPause(after: 1, of: prepared, failure: &failure, timeout: timeout)
                else { return completion(.failure(failure)) }
                // Retries wait, so they go on in a task, from attempt 2, exactly as `send` would.
                let earlier = failure
                let task = Task {
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        return completion(
                            .failure(
                                DepotError(
                                    .cancelled, "the request was cancelled while waiting to retry", request: summary)))
                    }
                    do {
                        let response = try await pipeline.run(
                            request, prepared: prepared, url: url, summary: summary, from: 2, earlier: earlier
                        ) { try await Self.awaiting(attempt, $0, url: $1, timeout: $2) }
                        completion(.success(response))
                    } catch {
                        completion(.failure(error))
                    }
                }
                slot.hold(TaskCall(task: task), order: 2)
            }
        }
        slot.hold(first, order: 1)
        return slot
    }

    /// Starts attempt 1 of a prepared request; `completion` gets its outcome as ``outcome(of:request:summary:since:)``
    /// makes it (no retry, no 401 handling: there is no interceptor).
    private func startFirst(
        _ prepared: NetworkRequest, url: URL, summary: DepotError.Request, attempt: StartAttempt,
        completion: @escaping @Sendable (Result<NetworkResponse, DepotError>) -> Void
    ) -> any NetworkCall {
        let (sent, telemetry) = willAttempt(prepared, url: url, attempt: 1)
        let start = ContinuousClock.now
        let pipeline = self
        return attempt(sent, url, summary, sent.effectiveTimeout(session: configuration.timeout)) { result in
            completion(
                pipeline.outcome(of: result, request: sent, summary: summary, since: start, telemetry: telemetry))
        }
    }

    /// Runs one attempt started by `attempt` and waits for it; cancelling the waiting task cancels
    /// the attempt (and one not started yet never starts).
    package static func awaiting(
        _ attempt: StartAttempt, _ request: NetworkRequest, url: URL, timeout: Duration
    ) async throws -> NetworkResponse {
        let summary = DepotError.Request(method: request.method.rawValue, url: url.absoluteString)
        let slot = CallSlot()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<NetworkResponse, any Error>) in
                guard !Task.isCancelled else {
                    return continuation.resume(
                        throwing: DepotError(.cancelled, "the request was cancelled", request: summary))
                }
                slot.hold(attempt(request, url, summary, timeout) { continuation.resume(with: $0) }, order: 1)
            }
        } onCancel: {
            slot.cancel()
        }
    }
}

/// Holds the call under way (an attempt, then the task that retries) so a cancellation arriving
/// before, during or after it is handed over still reaches it.
final class CallSlot: NetworkCall {
    private struct State {
        var call: (any NetworkCall)?
        /// The order of `call`: a call handed over later (a retry) may be held before an earlier
        /// one (the first attempt, which finished fast), and must not be replaced by it.
        var order = 0
        var cancelled = false
    }

    private let state = LockedValue(State())

    /// Holds `call`, unless one of a later `order` is held; cancels it at once when the slot was
    /// cancelled.
    func hold(_ call: any NetworkCall, order: Int) {
        let cancelled = state.withLock { state in
            if !state.cancelled, order > state.order { (state.call, state.order) = (call, order) }
            return state.cancelled
        }
        if cancelled { call.cancel() }
    }

    func cancel() {
        let call = state.withLock { state in
            state.cancelled = true
            defer { state.call = nil }
            return state.call
        }
        call?.cancel()
    }
}
