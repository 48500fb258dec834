import Foundation
import HTTPTypes

/// Adapts requests before they are sent (add a bearer token, a tracing header…).
///
/// ```swift
/// struct BearerToken: RequestInterceptor {
///     let token: String
///     func adapt(_ request: NetworkRequest) async throws -> NetworkRequest {
///         var request = request
///         request.headers[.authorization] = "Bearer \(token)"
///         return request
///     }
/// }
/// ```
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send in place of `request`; a throw fails the call.
    func adapt(_ request: NetworkRequest) async throws -> NetworkRequest
    /// Called at most once per request, when it was answered 401 (Unauthorized): refresh the
    /// credentials and return true to have the request adapted again and sent once more. The
    /// default returns false: the 401 goes to the caller.
    func shouldRetryUnauthorized(_ request: NetworkRequest, error: DepotError) async -> Bool
    /// The account whose credential this interceptor puts on requests now, as the app declares it
    /// (``AuthenticationInterceptor/account``); nil, the default, declares none. A session's
    /// ``Networking/account`` is its first interceptor's that declares one.
    var account: String? { get }
}

extension RequestInterceptor {
    /// False: a 401 goes to the caller.
    public func shouldRetryUnauthorized(_ request: NetworkRequest, error: DepotError) async -> Bool { false }

    /// Nil: no account declared.
    public var account: String? { nil }
}

/// Adds fixed headers to every request (a bearer token, say).
public struct HeaderInterceptor: RequestInterceptor {
    /// The header fields to add, in order; a request's own fields of the same name win.
    public var headers: HTTPFields
    /// Names given as strings that were refused (CR, LF or NUL, or not a field name).
    private var rejectedHeaders: [String] = []

    /// Makes an interceptor that adds `headers`.
    public init(_ headers: HTTPFields) { self.headers = headers }

    /// Makes an interceptor that adds `headers`; a name or value with CR, LF or NUL makes every
    /// request fail with `DepotError` `.invalidRequest` before it is sent.
    public init(_ headers: [String: String]) {
        (self.headers, rejectedHeaders) = HTTPFields.checking(headers)
    }

    /// Makes an interceptor that adds `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> HeaderInterceptor {
        HeaderInterceptor(["Authorization": "Bearer \(token)"])
    }

    /// Adds the fields whose names the request lacks.
    ///
    /// - Throws: `DepotError` `.invalidRequest` when a field given as a string was refused.
    public func adapt(_ request: NetworkRequest) async throws -> NetworkRequest {
        if let name = rejectedHeaders.first {
            throw DepotError(
                .invalidRequest, "header \(name.debugDescription) contains CR, LF or NUL, or is not a valid name")
        }
        var request = request
        request.headers.addMissing(from: headers)
        return request
    }
}

/// Decides whether a failed attempt is tried again: exponential backoff with jitter, idempotent
/// methods only (or any request carrying an `Idempotency-Key`), `Retry-After` honoured,
/// cancellation never retried.
public struct RetryPolicy: Sendable {
    /// How many attempts in all, the first included (1 means no retry).
    public var maximumAttempts: Int
    /// The pause before the first retry.
    public var baseDelay: Duration
    /// The longest pause, `Retry-After` included.
    public var maximumDelay: Duration
    /// Each pause is the previous one times this.
    public var multiplier: Double
    /// The fraction (0…1) of each pause that is random.
    public var jitter: Double
    /// Statuses worth another attempt.
    public var retryableStatuses: Set<Int>

    /// Makes a policy.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.2,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    ) {
        precondition(maximumAttempts >= 1, "maximumAttempts must be at least 1")
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = min(max(jitter, 0), 1)
        self.retryableStatuses = retryableStatuses
    }

    /// Never retries.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// The default: three attempts, 200 ms doubling, 20 % jitter.
    public static let standard = RetryPolicy()

    /// True when `request` may be sent again without risk of applying it twice.
    public func mayRepeat(_ request: NetworkRequest) -> Bool {
        request.method.isIdempotent || request.header("Idempotency-Key") != nil
    }

    /// The pause before attempt `attempt + 1` (`attempt` counts from 1), or nil to stop and fail.
    ///
    /// A `Retry-After` of delay-seconds or an HTTP date wins over the computed backoff; any other
    /// value is ignored. The result is never more than ``maximumDelay``, whatever the server sent
    /// and however many attempts failed.
    public func delay(after attempt: Int, request: NetworkRequest, error: DepotError) -> Duration? {
        guard attempt < maximumAttempts, mayRepeat(request), error.code != .cancelled else { return nil }
        let retryable: Bool =
            switch error.code {
            case .transport, .timeout: true
            case .status, .conflict, .notFound: error.status.map(retryableStatuses.contains) ?? false
            default: false
            }
        guard retryable else { return nil }
        let retryAfter = error.responseHeaders["retry-after"].flatMap { RetryAfter.seconds($0) }
        return backoff.delay(failures: attempt, retryAfter: retryAfter)
    }

    /// The backoff arithmetic, bounded by ``maximumDelay``.
    var backoff: Backoff {
        Backoff(base: baseDelay, multiplier: multiplier, maximum: maximumDelay, jitter: jitter)
    }
}
