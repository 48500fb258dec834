import Foundation

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
public final class NetworkingSession: Networking {
    /// The base URL every request path is relative to.
    public let url: URL
    /// The shared pipeline: headers, interceptors, retries, logging.
    public let pipeline: RequestPipeline
    private let session: URLSession

    /// Makes a session.
    ///
    /// - Parameters:
    ///   - url: the base URL, e.g. `http://127.0.0.1:8080` or `https://api.example.com/v1`.
    ///   - headers: headers for every request.
    ///   - configuration: timeout, interceptors, retry policy, logging (its headers are merged
    ///     with `headers`, which win).
    public init(url: URL, headers: [String: String] = [:], configuration: SessionConfiguration = SessionConfiguration()) {
        self.url = url
        pipeline = RequestPipeline(baseURL: url, headers: headers, configuration: configuration)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: sessionConfiguration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` through the pipeline and URLSession.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let session = self.session
        return try await pipeline.send(request) { request, url, timeout in
            try await Self.attempt(session: session, request: request, url: url, timeout: timeout)
        }
    }

    private static func attempt(session: URLSession, request: NetworkRequest, url: URL, timeout: Duration) async throws -> NetworkResponse {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = max(timeout.seconds, 0.001)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let summary = DepotError.Request(method: request.method.rawValue, url: url.absoluteString)
        let holder = TaskHolder()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<NetworkResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.map(error, request: summary, timeout: timeout))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(throwing: DepotError(.transport, "no HTTP response", request: summary))
                        return
                    }
                    var headers: [String: String] = [:]
                    for (name, value) in http.allHeaderFields {
                        if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                    }
                    continuation.resume(returning: NetworkResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
                }
                if !holder.start(task) {
                    continuation.resume(throwing: DepotError(.cancelled, "the request was cancelled", request: summary))
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
