import Foundation
import Metrics
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport, on URLSession (FoundationNetworking on Linux).
///
/// ```swift
/// let session = NetworkingSession(url: URL(string: "https://api.example.com")!,
///                                 headers: ["Accept": "application/json"])
/// let messages = MessageRepository(store: session)
/// ```
///
/// TLS certificates are always verified by this transport (URLSession on Linux offers no way to
/// skip verification); `allowsInsecureTLS` is honoured by the AsyncHTTPClient transport only.
///
/// Repeated response fields: URLSession hands over one value per name, so FoundationNetworking
/// joins the values of a repeated field (two `Link` or `Set-Cookie` fields) with `", "`, in the
/// order they arrived. This transport delivers that as ONE field, names in sorted order; use the
/// AsyncHTTPClient transport when each field must stay separate. Repeated request fields go out
/// the same way, joined with `","` by `URLRequest.addValue`.
///
/// Response size: a delegate counts the body's bytes and cancels the task once they pass
/// ``SessionConfiguration/maximumResponseSize`` (or at once for a larger `Content-Length`). On
/// Linux, FoundationNetworking neither pauses libcurl nor honours the response disposition, so
/// libcurl keeps reading until the cancellation reaches its queue; those bytes are dropped, never
/// kept, but on a fast link (loopback) the server may see a few more megabytes read than the limit.
public final class NetworkingSession: Networking {
    /// The base URL every request path is relative to.
    public let url: URL
    /// ``url``.
    public var baseURL: URL? { url }
    /// What this session learned about its server's routes; never shared with another session.
    public let routeMemory: RouteMemory? = RouteMemory()

    /// The configuration's ``SessionConfiguration/metricsFactory``.
    public var metricsFactory: (any MetricsFactory)? { pipeline.configuration.metricsFactory }
    /// The pipeline's: the account its interceptors declare (``RequestPipeline/account``).
    public var account: String? { pipeline.account }
    /// The shared pipeline: headers, interceptors, retries, logging.
    public let pipeline: RequestPipeline
    /// The URLSession requests start on now, with its delegate: replaced by a fresh one (an empty
    /// connection pool) after a refused connect that followed a live connection.
    private let pool: SessionPool
    /// Starts one attempt on `session`; made once.
    private let attempt: RequestPipeline.StartAttempt

    /// Makes a session.
    ///
    /// - Parameters:
    ///   - url: the base URL, e.g. `http://127.0.0.1:8080` or `https://api.example.com/v1`.
    ///   - headers: header fields for every request.
    ///   - configuration: timeout, interceptors, retry policy, logging, response size limit (its
    ///     headers are merged with `headers`, which win name by name).
    public convenience init(
        url: URL, headers: HTTPFields = HTTPFields(), configuration: SessionConfiguration = SessionConfiguration()
    ) {
        self.init(url: url, pipeline: RequestPipeline(baseURL: url, headers: headers, configuration: configuration))
    }

    /// Makes a session with headers given as a dictionary; a name or value with CR, LF or NUL makes
    /// every request fail with `DepotError` `.invalidRequest` before it is sent.
    public convenience init(
        url: URL, headers: [String: String], configuration: SessionConfiguration = SessionConfiguration()
    ) {
        self.init(url: url, pipeline: RequestPipeline(baseURL: url, headers: headers, configuration: configuration))
    }

    private init(url: URL, pipeline: RequestPipeline) {
        self.url = url
        self.pipeline = pipeline
        let pool = SessionPool()
        let limit = pipeline.configuration.maximumResponseSize
        self.pool = pool
        attempt = RequestPipeline.limitingTime(
            RequestPipeline.followingRedirects { request, url, summary, timeout, completion in
                let (session, delegate) = pool.current
                return Self.start(
                    session: session, delegate: delegate, request: request, url: url, summary: summary,
                    timeout: timeout, limit: limit, completion: completion)
            })
    }

    deinit {
        pool.invalidate()
    }

    /// `request` with the session's headers merged and its interceptors run.
    public func prepared(_ request: NetworkRequest) async throws -> NetworkRequest {
        try await pipeline.prepared(request)
    }

    /// Sends `request` through the pipeline and URLSession.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let attempt = self.attempt
        return try await pipeline.send(request) { request, url, timeout in
            try await RequestPipeline.awaiting(attempt, request, url: url, timeout: timeout)
        }
    }

    /// Sends `request` through the pipeline and URLSession, calling `completion` from the session's
    /// delegate: no task per request.
    @discardableResult
    public func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        pipeline.send(request, attempt: attempt, completion: completion)
    }

    /// Starts one data task; the delegate calls `completion` when it ends.
    private static func start(
        session: URLSession, delegate: SessionDelegate, request: NetworkRequest, url: URL,
        summary: DepotError.Request, timeout: Duration, limit: Int,
        completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        // URLSession's timeout is an idle timeout, in whole seconds (FoundationNetworking below half
        // a second times out at once): the pipeline's own timer keeps the exact, total one
        // (``RequestPipeline/limitingTime(_:)``), so URLSession gets a second more, rounded up.
        urlRequest.timeoutInterval = max(timeout.seconds.rounded(.up), 1) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        delegate.register(
            task.taskIdentifier,
            SessionDelegate.Exchange(
                completion: completion, request: summary, limit: limit, timeout: timeout,
                checksContentLength: request.method != .head))
        task.resume()
        return DataTaskCall(task: task, delegate: delegate, request: summary)
    }

    /// The `DepotError` for a URLSession error.
    static func map(_ error: any Error, request: DepotError.Request, timeout: Duration) -> DepotError {
        guard let urlError = error as? URLError else {
            return DepotError(.transport, "\(error)", request: request, underlying: error)
        }
        switch urlError.code {
        case .cancelled:
            return DepotError(.cancelled, "the request was cancelled", request: request, underlying: error)
        case .timedOut:
            return DepotError(.timeout, "no answer within \(timeout)", request: request, underlying: error)
        default:
            return DepotError(.transport, urlError.localizedDescription, request: request, underlying: error)
        }
    }
}

/// A data task under way: cancelling it settles the call `.cancelled` at once, then cancels the
/// task.
private struct DataTaskCall: NetworkCall {
    let task: URLSessionDataTask
    let delegate: SessionDelegate
    let request: DepotError.Request

    func cancel() {
        // The call is settled here, from the fact that it was cancelled, not when
        // FoundationNetworking reports the task's cancel: on a loaded machine that report was
        // seen to come only after the answer the cancel should have stopped (40 s later).
        let cancelled = DepotError(
            .cancelled, "the request was cancelled", request: request, underlying: URLError(.cancelled))
        delegate.finish(task.taskIdentifier, with: .failure(cancelled))
        task.cancel()
    }
}

/// The URLSession a ``NetworkingSession`` starts requests on. A refused connect after a connection
/// may have been open (libcurl's pool may have held it) replaces it with a fresh one: tasks under
/// way finish on the old one, and a refusal on the new one, which never connected, is a request
/// never sent (``RequestNotSent``).
final class SessionPool: Sendable {
    private let state: LockedValue<(URLSession, SessionDelegate)?> = LockedValue(nil)

    /// The session to start a request on now.
    var current: (URLSession, SessionDelegate) {
        state.withLock { state in
            if let state { return state }
            let made = make()
            state = made
            return made
        }
    }

    /// Starts a fresh session for later requests when `delegate`'s is still the current one.
    func renew(replacing delegate: SessionDelegate) {
        let old = state.withLock { state -> URLSession? in
            guard let (session, current) = state, current === delegate else { return nil }
            state = make()
            return session
        }
        old?.finishTasksAndInvalidate()
    }

    /// Lets the current session finish its tasks, then end.
    func invalidate() {
        state.withLock { $0?.0 }?.finishTasksAndInvalidate()
    }

    private func make() -> (URLSession, SessionDelegate) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 16
        let delegate = SessionDelegate { [weak self] delegate in self?.renew(replacing: delegate) }
        return (URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil), delegate)
    }
}
