import Dispatch
import Foundation

/// Timeouts, alike on every transport: Depot's own timer bounds each attempt, redirects
/// included, so a timeout is TOTAL. A transport's own timeouts may be idle timeouts (URLSession
/// counts whole seconds between bytes, so a server trickling a byte now and then kept a request
/// alive for as long as it trickled); this timer does not care what the server sends.
extension RequestPipeline {
    /// `attempt` bounded by its timeout: when the timeout passes first, `completion` gets
    /// `DepotError` `.timeout` and the attempt is cancelled; whichever comes first settles it,
    /// once. Every attempt of the returned function shares one ``DeadlineTimer``.
    package static func limitingTime(_ attempt: @escaping StartAttempt) -> StartAttempt {
        let timer = DeadlineTimer()
        return { request, url, summary, timeout, completion in
            let call = DeadlineCall(timer: timer, request: summary, timeout: timeout, completion: completion)
            timer.add(call, timeout: timeout)
            call.hold(attempt(request, url, summary, timeout) { call.settle($0) })
            return call
        }
    }

    /// `timeout` in nanoseconds, from 0 to a million seconds (a `Duration` may hold more than an
    /// `Int` of nanoseconds).
    static func clampedNanoseconds(_ timeout: Duration) -> Int {
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0 else { return 0 }
        return Int(min(seconds, 1_000_000) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// One attempt under a deadline: settles once, with the attempt's answer or the timeout; a
/// timeout cancels the attempt. Watched by its transport's ``DeadlineTimer`` until it settles.
final class DeadlineCall: NetworkCall {
    private struct State {
        var completion: (@Sendable (Result<NetworkResponse, any Error>) -> Void)?
        var call: (any NetworkCall)?
        /// True once settled or cancelled: a call handed over later is cancelled at once.
        var ended = false
        var cancelled = false
    }

    private let state: LockedValue<State>
    private let timer: DeadlineTimer
    /// What the timeout error names.
    private let request: DepotError.Request
    private let timeout: Duration

    init(
        timer: DeadlineTimer, request: DepotError.Request, timeout: Duration,
        completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) {
        state = LockedValue(State(completion: completion))
        self.timer = timer
        self.request = request
        self.timeout = timeout
    }

    /// Keeps the attempt under way; cancels it at once when the deadline passed (or the call was
    /// cancelled) before it was handed over.
    func hold(_ call: any NetworkCall) {
        let cancel = state.withLock { state -> Bool in
            if state.cancelled || state.ended { return true }
            state.call = call
            return false
        }
        if cancel { call.cancel() }
    }

    /// The deadline passed: settles with `DepotError` `.timeout` unless settled already.
    func expire() {
        settle(.failure(DepotError(.timeout, "no answer within \(timeout)", request: request)))
    }

    /// Settles with `result` unless settled already; a timeout cancels the attempt under way.
    func settle(_ result: Result<NetworkResponse, any Error>) {
        let (completion, call) = state.withLock { state in
            defer { (state.completion, state.call, state.ended) = (nil, nil, true) }
            return (state.completion, state.call)
        }
        guard let completion else { return }
        timer.remove(self)
        if case .failure(let error as DepotError) = result, error.code == .timeout { call?.cancel() }
        completion(result)
    }

    func cancel() {
        let call = state.withLock { state in
            state.cancelled = true
            return state.call
        }
        call?.cancel()
    }
}
