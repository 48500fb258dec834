import Foundation
import Metrics

/// Sends requests: what a repository's `store` is. ``NetworkingSession`` (URLSession) is the default;
/// `DepotAsyncHTTPClient` adds a faster one for servers.
public protocol Networking: Sendable {
    /// Sends `request` and returns the answer. Non-2xx answers throw.
    ///
    /// - Throws: `DepotError`: `.notFound` (404), `.conflict` (409/412), `.status` (other
    ///   non-2xx, with status, headers and body), `.transport`, `.timeout`, `.cancelled`,
    ///   `.invalidRequest`.
    func send(_ request: NetworkRequest) async throws -> NetworkResponse

    /// Starts sending `request` and calls `completion` once, with the answer or the error
    /// ``send(_:)`` would throw. Repositories send through this entry point.
    ///
    /// ```swift
    /// let call = session.send(NetworkRequest(method: .get, path: "messages/1")) { result in
    ///     print(result)
    /// }
    /// call.cancel()  // completes with DepotError .cancelled unless the answer came first
    /// ```
    ///
    /// The default runs ``send(_:)`` in a new task, so a type that implements only ``send(_:)``
    /// (a wrapper that counts requests, a test double) behaves the same either way.
    /// ``NetworkingSession`` and `AsyncHTTPClientSession` implement it directly: their transports
    /// call `completion` from their own callbacks, with no task per call.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - completion: called once, on a thread of the transport's choosing; keep it short.
    /// - Returns: the call under way, to cancel it.
    @discardableResult
    func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall

    /// The URL request paths are relative to, when the transport has one: a pull resolves a
    /// server's absolute next-page URL against it. Nil by default.
    var baseURL: URL? { get }

    /// What this transport learned about its server's routes (the PATCH format a route reads, a
    /// batch route the server does not have), kept for the transport's life and never shared with
    /// another transport. Nil by default: nothing is remembered, so each PATCH starts from the
    /// configured format and each automatic push tries the batch route. A wrapper returns its
    /// base's.
    var routeMemory: RouteMemory? { get }

    /// Where metrics about this transport's work go (requests, synchronizations, the outbox); nil
    /// uses the bootstrapped `MetricsSystem`. Nil by default.
    var metricsFactory: (any MetricsFactory)? { get }

    /// `request` as it would go out (the transport's own headers merged, its interceptors run),
    /// without sending it: what the HTTP cache in the store compares with the request headers an
    /// answer `Vary`s on. The default returns `request` unchanged (a wrapper should return its
    /// base's).
    ///
    /// - Throws: what an interceptor throws.
    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest

    /// The account requests go under now, as the app declares it on an interceptor
    /// (``AuthenticationInterceptor/account``): every outbox entry a write records keeps it
    /// (``OutboxEntry/account``), and the entry is sent only while it is the account in force.
    /// Nil by default: none declared, and entries go under whatever credential is in force. A
    /// wrapper returns its base's.
    var account: String? { get }
}

/// A request under way, started by ``Networking/send(_:completion:)``.
public protocol NetworkCall: Sendable {
    /// Stops the request: its completion gets `DepotError` `.cancelled`, unless it already ran.
    /// Calling it again, or after the completion ran, does nothing.
    func cancel()
}

extension Networking {
    /// No base URL.
    public var baseURL: URL? { nil }

    /// Nil: nothing learned about the server's routes is remembered.
    public var routeMemory: RouteMemory? { nil }

    /// Nil: the bootstrapped `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)? { nil }

    /// `request` unchanged.
    public func prepared(_ request: NetworkRequest) async throws -> NetworkRequest { request }

    /// Nil: no account declared.
    public var account: String? { nil }

    /// Runs ``send(_:)`` in a new task and calls `completion` with its outcome; cancelling the
    /// call cancels the task (a `CancellationError` reaches `completion` as `DepotError`
    /// `.cancelled`).
    @discardableResult
    public func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        let task = Task {
            do {
                completion(.success(try await send(request)))
            } catch {
                completion(.failure(error is CancellationError ? DepotError.cancelled : error))
            }
        }
        return TaskCall(task: task)
    }
}

/// A call run by a task: cancelling it cancels the task.
struct TaskCall: NetworkCall {
    let task: Task<Void, Never>

    func cancel() { task.cancel() }
}

/// The error for a non-2xx answer: `.notFound` for 404, `.conflict` for 409 and 412, `.status`
/// for the rest, keeping status, headers and body.
public func statusError(for response: NetworkResponse, request: DepotError.Request?) -> DepotError {
    let code: DepotError.Code =
        switch response.status {
        case 404: .notFound
        case 409, 412: .conflict
        default: .status
        }
    var message = "the server answered \(response.status)"
    if (300..<400).contains(response.status), let location = response.header("location") {
        message +=
            ", redirecting to \(location); Depot follows redirects of GET and HEAD, and of other methods only a 307 or 308 to the same origin, never turning them into a GET (does the path need a trailing slash?)"
    }
    return DepotError(
        code,
        message,
        request: request,
        status: response.status,
        responseHeaders: DepotError.Headers(response.headers),
        responseBody: response.body.isEmpty ? nil : response.body
    )
}
