#if AsyncHTTPClient
import AsyncHTTPClient
import Depot
import Foundation
import NIOCore
import NIOHTTP1

/// A transport on swift-server/async-http-client: the fast path for servers. Swapping it for
/// ``Depot/NetworkingSession`` is the whole migration; both share the same pipeline (headers,
/// interceptors, retries, logging, error mapping).
///
/// ```swift
/// let session = AsyncHTTPClientSession(url: URL(string: "http://127.0.0.1:8080")!)
/// let messages = MessageRepository(store: session)
/// ```
///
/// By default it uses one process-wide client (``defaultClient``) that needs no shutdown and,
/// like URLSession, fails at once on a refused connection (async-http-client's own default retries
/// connecting until the deadline; Depot's ``RetryPolicy`` decides retries instead). With
/// `allowsInsecureTLS`, the session owns a client: call ``shutdown()`` when done with it.
public final class AsyncHTTPClientSession: Networking {
    /// The base URL every request path is relative to.
    public let url: URL
    /// The shared pipeline: headers, interceptors, retries, logging.
    public let pipeline: RequestPipeline
    /// The client requests go through.
    public let client: HTTPClient
    private let ownsClient: Bool
    /// The process-wide client sessions use by default: never shut down, no connection retries.
    public static let defaultClient: HTTPClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: clientConfiguration(insecure: false)
    )

    static func clientConfiguration(insecure: Bool) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        if insecure {
            configuration.tlsConfiguration = .clientDefault
            configuration.tlsConfiguration?.certificateVerification = .none
        }
        return configuration
    }

    /// The most bytes read from one answer's body (64 MiB).
    public static let maximumBodySize = 64 * 1024 * 1024

    /// Makes a session.
    ///
    /// - Parameters:
    ///   - url: the base URL.
    ///   - headers: headers for every request.
    ///   - configuration: timeout, interceptors, retry policy, logging, TLS verification.
    ///   - client: a client to share; nil uses ``defaultClient``, or a new client that skips
    ///     certificate verification when `configuration.allowsInsecureTLS` is set.
    public init(
        url: URL,
        headers: [String: String] = [:],
        configuration: SessionConfiguration = SessionConfiguration(),
        client: HTTPClient? = nil
    ) {
        self.url = url
        pipeline = RequestPipeline(baseURL: url, headers: headers, configuration: configuration)
        if let client {
            self.client = client
            ownsClient = false
        } else if configuration.allowsInsecureTLS {
            self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration(insecure: true))
            ownsClient = true
        } else {
            self.client = Self.defaultClient
            ownsClient = false
        }
    }

    /// Shuts down a client this session created; does nothing to a shared or borrowed one.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request` through the pipeline and async-http-client.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let client = self.client
        return try await pipeline.send(request) { request, url, timeout in
            try await Self.attempt(client: client, request: request, url: url, timeout: timeout)
        }
    }

    private static func attempt(client: HTTPClient, request: NetworkRequest, url: URL, timeout: Duration) async throws -> NetworkResponse {
        let summary = DepotError.Request(method: request.method.rawValue, url: url.absoluteString)
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(max(timeout.nanoseconds, 1_000_000)))
            let body = try await response.body.collect(upTo: maximumBodySize)
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                let key = name.lowercased()
                headers[key] = headers[key].map { $0 + ", " + value } ?? value
            }
            return NetworkResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch {
            throw map(error, request: summary, timeout: timeout)
        }
    }

    private static func map(_ error: any Error, request: DepotError.Request, timeout: Duration) -> DepotError {
        if error is CancellationError || Task.isCancelled {
            return DepotError(.cancelled, "the request was cancelled", request: request, underlying: error)
        }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return DepotError(.timeout, "no answer within \(timeout)", request: request, underlying: error)
            case .cancelled:
                return DepotError(.cancelled, "the request was cancelled", request: request, underlying: error)
            default:
                break
            }
        }
        return DepotError(.transport, "\(error)", request: request, underlying: error)
    }
}
#endif
