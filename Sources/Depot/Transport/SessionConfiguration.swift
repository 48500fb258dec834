import Foundation
import Logging

/// What every transport session shares: default headers, timeout, interceptors, retries, logging.
public struct SessionConfiguration: Sendable {
    /// Headers sent with every request; a request's own header of the same name wins.
    public var headers: [String: String]
    /// How long to wait for an answer when a request names no timeout.
    public var timeout: Duration
    /// Interceptors that adapt every request, in order.
    public var interceptors: [any RequestInterceptor]
    /// When to try a failed request again. Default: never (``RetryPolicy/none``).
    public var retryPolicy: RetryPolicy
    /// Where requests and answers are logged (at `.debug`; failures at `.warning`). Silent by
    /// default. `Authorization`, `Cookie`, `Set-Cookie` and `Proxy-Authorization` are redacted.
    public var logger: Logger
    /// Called before each attempt is sent, with the final request and URL.
    public var onRequest: (@Sendable (NetworkRequest, URL) -> Void)?
    /// Called after each attempt with the answer or the error, and how long it took.
    public var onResponse: (@Sendable (NetworkRequest, Result<NetworkResponse, DepotError>, Duration) -> Void)?
    /// Skips TLS certificate verification. For test servers only; off by default.
    public var allowsInsecureTLS: Bool

    /// Makes a configuration.
    public init(
        headers: [String: String] = [:],
        timeout: Duration = .seconds(60),
        interceptors: [any RequestInterceptor] = [],
        retryPolicy: RetryPolicy = .none,
        logger: Logger = Logger(label: "depot", factory: { _ in SwiftLogNoOpLogHandler() }),
        onRequest: (@Sendable (NetworkRequest, URL) -> Void)? = nil,
        onResponse: (@Sendable (NetworkRequest, Result<NetworkResponse, DepotError>, Duration) -> Void)? = nil,
        allowsInsecureTLS: Bool = false
    ) {
        self.headers = headers
        self.timeout = timeout
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.logger = logger
        self.onRequest = onRequest
        self.onResponse = onResponse
        self.allowsInsecureTLS = allowsInsecureTLS
    }
}

/// The part every transport shares: merges headers, runs interceptors, refuses bad headers, builds
/// the URL, logs with secrets redacted, turns non-2xx answers into ``DepotError``s and retries
/// as the ``RetryPolicy`` says. A transport supplies only the single attempt.
public struct RequestPipeline: Sendable {
    /// The base URL every request path is relative to.
    public let baseURL: URL
    /// The shared configuration.
    public let configuration: SessionConfiguration

    /// Makes a pipeline; `headers` are merged over the configuration's own (they win).
    public init(baseURL: URL, headers: [String: String] = [:], configuration: SessionConfiguration) {
        var configuration = configuration
        configuration.headers.merge(headers) { _, new in new }
        self.baseURL = baseURL
        self.configuration = configuration
    }

    /// One attempt: send `request` to `url`, waiting at most `timeout`; return any answer, 2xx or
    /// not, and throw a ``DepotError`` (`.transport`, `.timeout`, `.cancelled`) when there is none.
    public typealias Attempt = @Sendable (_ request: NetworkRequest, _ url: URL, _ timeout: Duration) async throws -> NetworkResponse

    /// Sends `request` through the pipeline.
    public func send(_ request: NetworkRequest, attempt: Attempt) async throws -> NetworkResponse {
        var prepared = request
        for (name, value) in configuration.headers where prepared.header(name) == nil {
            prepared.headers[name] = value
        }
        for interceptor in configuration.interceptors {
            prepared = try await interceptor.adapt(prepared)
        }
        let url = try prepared.url(relativeTo: baseURL)
        let summary = DepotError.Request(method: prepared.method.rawValue, url: url.absoluteString)
        do {
            try prepared.validateHeaders()
        } catch var error as DepotError {
            error.request = summary
            throw error
        }
        let timeout = prepared.timeout ?? configuration.timeout
        var attemptNumber = 1
        while true {
            if Task.isCancelled { throw DepotError(.cancelled, "the request was cancelled", request: summary) }
            configuration.onRequest?(prepared, url)
            log(prepared, url: url, attempt: attemptNumber)
            let start = ContinuousClock.now
            var failure: DepotError
            do {
                let response = try await attempt(prepared, url, timeout)
                let elapsed = ContinuousClock.now - start
                if response.isSuccess {
                    configuration.onResponse?(prepared, .success(response), elapsed)
                    configuration.logger.debug(
                        "\(summary) → \(response.status) (\(response.body.count) bytes)",
                        metadata: ["headers": .string(Self.redacted(response.headers).description)]
                    )
                    return response
                }
                failure = statusError(for: response, request: summary)
                configuration.onResponse?(prepared, .failure(failure), elapsed)
            } catch {
                failure = Self.depotError(error, request: summary)
                configuration.onResponse?(prepared, .failure(failure), ContinuousClock.now - start)
            }
            configuration.logger.warning("\(failure)")
            guard let delay = configuration.retryPolicy.delay(after: attemptNumber, request: prepared, error: failure)
            else { throw failure }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw DepotError(.cancelled, "the request was cancelled while waiting to retry", request: summary)
            }
            attemptNumber += 1
        }
    }

    private func log(_ request: NetworkRequest, url: URL, attempt: Int) {
        configuration.logger.debug(
            "\(request.method) \(url.absoluteString)\(attempt > 1 ? " (attempt \(attempt))" : "")",
            metadata: [
                "headers": .string(Self.redacted(request.headers).description),
                "bytes": .stringConvertible(request.body?.count ?? 0),
            ]
        )
    }

    /// Header names whose values never reach a log.
    public static let redactedHeaders: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// `headers` with secret values replaced by `<redacted>`, sorted by name.
    public static func redacted(_ headers: [String: String]) -> [(String, String)] {
        headers.map { ($0.key, redactedHeaders.contains($0.key.lowercased()) ? "<redacted>" : $0.value) }
            .sorted { $0.0 < $1.0 }
    }

    /// Wraps any error in a ``DepotError`` that names the request.
    static func depotError(_ error: any Error, request: DepotError.Request) -> DepotError {
        if var error = error as? DepotError {
            if error.request == nil { error.request = request }
            return error
        }
        if error is CancellationError {
            return DepotError(.cancelled, "the request was cancelled", request: request, underlying: error)
        }
        return DepotError(.transport, "\(error)", request: request, underlying: error)
    }
}
