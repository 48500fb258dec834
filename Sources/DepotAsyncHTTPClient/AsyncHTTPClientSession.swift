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
/// By default it uses `HTTPClient.shared`, which needs no shutdown. With
/// `allowsInsecureTLS` (or a client of your own passed in), call ``shutdown()`` when done with a
/// client the session created.
public final class AsyncHTTPClientSession: Networking {
    /// The base URL every request path is relative to.
    public let url: URL
    /// The shared pipeline: headers, interceptors, retries, logging.
    public let pipeline: RequestPipeline
    /// The client requests go through.
    public let client: HTTPClient
    private let ownsClient: Bool
    /// The most bytes read from one answer's body (64 MiB).
    public static let maximumBodySize = 64 * 1024 * 1024

    /// Makes a session.
    ///
    /// - Parameters:
    ///   - url: the base URL.
    ///   - headers: headers for every request.
    ///   - configuration: timeout, interceptors, retry policy, logging, TLS verification.
    ///   - client: a client to share; nil uses `HTTPClient.shared`, or a new client that skips
    ///     certificate verification when `configuration.allowsInsecureTLS` is set.
    public init(
        url: URL,
        headers: [String: String] = [:],
        configuration: SessionConfiguration = SessionConfiguration(),
        client: HTTPClient? = nil
    ) {
        self.url = url
        var configuration = configuration
        configuration.headers.merge(headers) { _, new in new }
        pipeline = RequestPipeline(baseURL: url, configuration: configuration)
        if let client {
            self.client = client
            ownsClient = false
        } else if configuration.allowsInsecureTLS {
            var clientConfiguration = HTTPClient.Configuration()
            clientConfiguration.tlsConfiguration = .clientDefault
            clientConfiguration.tlsConfiguration?.certificateVerification = .none
            self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
            ownsClient = true
        } else {
            self.client = HTTPClient.shared
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
        let nanoseconds = Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(max(nanoseconds, 1_000_000)))
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
