import Depot
import Foundation

/// A session that notes when each call through it began and ended, on the continuous clock (the
/// checker's ``CheckApp`` judges each against its deadline, `DEADLINE`). Everything else is its
/// base's: the calls go through the base's own `send(_:completion:)`, so what the transport
/// records (sent or not, cancellation) is unchanged. (Its metrics factory is the default, nil, as
/// the checker's sessions' is.)
struct CheckTimedNetworking: Networking {
    /// One call: what it sent, when it began, and when and how it ended (nil while under way).
    struct Call: Sendable {
        /// `GET items/i3`.
        var request: String
        /// When `send` was called.
        var began: ContinuousClock.Instant
        /// When its completion ran.
        var ended: ContinuousClock.Instant?
        /// How it ended: `200`, `503 Retry-After: 30`, `timeout`.
        var outcome = ""
        /// Whether a judge already reported it.
        var judged = false
        /// Its `Idempotency-Key`, if it carried one (judged by ``CheckApp/judgeSenders(step:_:)``).
        var key: String?
        /// Whether `TWO SENDERS` already reported it.
        var sendersJudged = false
    }

    /// The calls of every session sharing one log, in the order they began.
    final class Log: Sendable {
        /// The calls.
        let calls = LockedValue<[Call]>([])
    }

    /// The session underneath.
    let base: any Networking
    /// Where its calls are noted.
    let log: Log

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let index = began(request)
        do {
            let response = try await base.send(request)
            ended(index, .success(response))
            return response
        } catch {
            ended(index, .failure(error))
            throw error
        }
    }

    @discardableResult
    func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        let index = began(request)
        return base.send(request) { [self] result in
            ended(index, result)
            completion(result)
        }
    }

    /// Notes a call of `request` beginning now; returns its index in the log.
    func began(_ request: NetworkRequest) -> Int {
        log.calls.withLock { calls in
            var call = Call(request: "\(request.method.rawValue) \(request.path)", began: .now)
            call.key = request.header("Idempotency-Key")
            calls.append(call)
            return calls.count - 1
        }
    }

    /// Notes the call at `index` ending now with `result`.
    func ended(_ index: Int, _ result: Result<NetworkResponse, any Error>) {
        let outcome: String
        switch result {
        case .success(let response): outcome = "\(response.status)"
        case .failure(let error as DepotError):
            outcome =
                (error.status.map { "\($0)" } ?? "\(error.code)")
                + (error.responseHeaders["retry-after"].map { " Retry-After: \($0)" } ?? "")
        case .failure(let error): outcome = "\(type(of: error))"
        }
        log.calls.withLock { calls in
            calls[index].ended = .now
            calls[index].outcome = outcome
        }
    }

    var baseURL: URL? { base.baseURL }
    var routeMemory: RouteMemory? { base.routeMemory }
    var account: String? { base.account }

    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest { try await base.prepared(request) }
}
