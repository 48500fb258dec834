import Foundation
import HTTPTypes
import Logging
import Metrics

/// What every transport session shares: default headers, timeout, interceptors, retries, logging.
public struct SessionConfiguration: Sendable {
    /// Header fields sent with every request, in order, repeated names kept; a request's own
    /// fields of the same name win.
    public var headers: HTTPFields
    /// How long to wait for an answer when a request names no timeout: the whole attempt (its
    /// redirects included) ends within it with `.timeout`, however the server trickles its bytes.
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
    /// The most bytes an answer's body may have (default 32 MiB). A larger answer fails with
    /// `DepotError` `.responseTooLarge`: at once when its `Content-Length` says so, otherwise as
    /// soon as the bytes received pass the limit; the transport stops reading and cancels the
    /// request, and Depot never keeps more than this. Never retried. (FoundationNetworking cannot
    /// pause libcurl: until the cancellation reaches it, it may read a little further ahead and drop
    /// what it read; see ``NetworkingSession``.)
    public var maximumResponseSize: Int
    /// Where the request metrics go (`depot.requests`, `depot.request.duration`); nil (the
    /// default) uses the bootstrapped `MetricsSystem`, and when nothing is bootstrapped no metric
    /// is made at all.
    public var metricsFactory: (any MetricsFactory)?
    /// Names of fields given as strings that were refused; sending throws `.invalidRequest`.
    var rejectedHeaders: [String] = []

    /// The default ``maximumResponseSize``: 32 MiB.
    public static let defaultMaximumResponseSize = 32 * 1024 * 1024

    /// Makes a configuration.
    public init(
        headers: HTTPFields = HTTPFields(),
        timeout: Duration = .seconds(60),
        interceptors: [any RequestInterceptor] = [],
        retryPolicy: RetryPolicy = .none,
        logger: Logger = Logger(label: "depot", factory: { _ in SwiftLogNoOpLogHandler() }),
        onRequest: (@Sendable (NetworkRequest, URL) -> Void)? = nil,
        onResponse: (@Sendable (NetworkRequest, Result<NetworkResponse, DepotError>, Duration) -> Void)? = nil,
        allowsInsecureTLS: Bool = false,
        maximumResponseSize: Int = SessionConfiguration.defaultMaximumResponseSize
    ) {
        self.headers = headers
        self.timeout = timeout
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.logger = logger
        self.onRequest = onRequest
        self.onResponse = onResponse
        self.allowsInsecureTLS = allowsInsecureTLS
        self.maximumResponseSize = maximumResponseSize
    }

    /// Makes a configuration with headers given as a dictionary (one field per name); a name or
    /// value with CR, LF or NUL makes every request fail with `DepotError` `.invalidRequest`
    /// before it is sent.
    public init(
        headers: [String: String],
        timeout: Duration = .seconds(60),
        interceptors: [any RequestInterceptor] = [],
        retryPolicy: RetryPolicy = .none,
        logger: Logger = Logger(label: "depot", factory: { _ in SwiftLogNoOpLogHandler() }),
        onRequest: (@Sendable (NetworkRequest, URL) -> Void)? = nil,
        onResponse: (@Sendable (NetworkRequest, Result<NetworkResponse, DepotError>, Duration) -> Void)? = nil,
        allowsInsecureTLS: Bool = false,
        maximumResponseSize: Int = SessionConfiguration.defaultMaximumResponseSize
    ) {
        let (fields, rejected) = HTTPFields.checking(headers)
        self.init(
            headers: fields, timeout: timeout, interceptors: interceptors, retryPolicy: retryPolicy, logger: logger,
            onRequest: onRequest, onResponse: onResponse, allowsInsecureTLS: allowsInsecureTLS,
            maximumResponseSize: maximumResponseSize
        )
        rejectedHeaders = rejected
    }
}
