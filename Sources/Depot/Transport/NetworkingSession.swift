import Foundation
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
    /// The shared pipeline: headers, interceptors, retries, logging.
    public let pipeline: RequestPipeline
    private let session: URLSession
    private let delegate: SessionDelegate

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
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpMaximumConnectionsPerHost = 16
        delegate = SessionDelegate()
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` through the pipeline and URLSession.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let session = self.session
        let delegate = self.delegate
        let limit = pipeline.configuration.maximumResponseSize
        return try await pipeline.send(request) { request, url, timeout in
            try await Self.attempt(
                session: session, delegate: delegate, request: request, url: url, timeout: timeout, limit: limit)
        }
    }

    private static func attempt(
        session: URLSession, delegate: SessionDelegate, request: NetworkRequest, url: URL, timeout: Duration, limit: Int
    ) async throws -> NetworkResponse {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = max(timeout.seconds, 0.001)
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        urlRequest.httpBody = request.body
        let summary = DepotError.Request(method: request.method.rawValue, url: url.absoluteString)
        let holder = TaskHolder()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<NetworkResponse, any Error>) in
                let task = session.dataTask(with: urlRequest)
                let identifier = task.taskIdentifier
                delegate.register(
                    identifier,
                    SessionDelegate.Exchange(
                        continuation: continuation, request: summary, limit: limit,
                        checksContentLength: request.method != .head
                    ) { error in
                        Self.map(error, request: summary, timeout: timeout)
                    })
                if !holder.start(task) {
                    delegate.finish(
                        identifier,
                        with: .failure(DepotError(.cancelled, "the request was cancelled", request: summary)))
                }
            }
        } onCancel: {
            holder.cancel()
        }
    }

    private static func map(_ error: any Error, request: DepotError.Request, timeout: Duration) -> DepotError {
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

/// Holds the URL task so a cancellation arriving before or after it starts still cancels it.
private final class TaskHolder: Sendable {
    private let state = LockedValue<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    /// Starts `task`, or returns false (leaving it unstarted) when cancellation came first.
    func start(_ task: URLSessionDataTask) -> Bool {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if !cancelled { task.resume() }
        return !cancelled
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
