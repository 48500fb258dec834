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
    ///
    /// Every response field is delivered separately, in the order received (two `Link` fields stay two).
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

        /// The most bytes read from one answer's body before ``SessionConfiguration/maximumResponseSize``
        /// existed (64 MiB); no longer used.
        @available(*, deprecated, message: "set SessionConfiguration.maximumResponseSize")
        public static let maximumBodySize = 64 * 1024 * 1024

        /// Makes a session.
        ///
        /// - Parameters:
        ///   - url: the base URL.
        ///   - headers: header fields for every request.
        ///   - configuration: timeout, interceptors, retry policy, logging, TLS verification, response
        ///     size limit.
        ///   - client: a client to share; nil uses ``defaultClient``, or a new client that skips
        ///     certificate verification when `configuration.allowsInsecureTLS` is set.
        public convenience init(
            url: URL,
            headers: HTTPFields = HTTPFields(),
            configuration: SessionConfiguration = SessionConfiguration(),
            client: HTTPClient? = nil
        ) {
            self.init(
                url: url, pipeline: RequestPipeline(baseURL: url, headers: headers, configuration: configuration),
                client: client)
        }

        /// Makes a session with headers given as a dictionary; a name or value with CR, LF or NUL makes
        /// every request fail with `DepotError` `.invalidRequest` before it is sent.
        public convenience init(
            url: URL,
            headers: [String: String],
            configuration: SessionConfiguration = SessionConfiguration(),
            client: HTTPClient? = nil
        ) {
            self.init(
                url: url, pipeline: RequestPipeline(baseURL: url, headers: headers, configuration: configuration),
                client: client)
        }

        private init(url: URL, pipeline: RequestPipeline, client: HTTPClient?) {
            self.url = url
            self.pipeline = pipeline
            let configuration = pipeline.configuration
            if let client {
                self.client = client
                ownsClient = false
            } else if configuration.allowsInsecureTLS {
                self.client = HTTPClient(
                    eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration(insecure: true))
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
            let limit = pipeline.configuration.maximumResponseSize
            return try await pipeline.send(request) { request, url, timeout in
                try await Self.attempt(client: client, request: request, url: url, timeout: timeout, limit: limit)
            }
        }

        private static func attempt(
            client: HTTPClient, request: NetworkRequest, url: URL, timeout: Duration, limit: Int
        ) async throws -> NetworkResponse {
            let summary = DepotError.Request(method: request.method.rawValue, url: url.absoluteString)
            var outgoing = HTTPClientRequest(url: url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headers { outgoing.headers.add(name: field.name.rawName, value: field.value) }
            if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            do {
                let response = try await client.execute(
                    outgoing, timeout: .nanoseconds(max(timeout.nanoseconds, 1_000_000)))
                let status = Int(response.status.code)
                let headers = fields(of: response.headers)
                let body: ByteBuffer
                do {
                    // Throws at once when Content-Length (ignored for HEAD and 304) passes the limit,
                    // else as soon as the bytes read pass it; the unread rest cancels the request.
                    body = try await response.body.collect(upTo: limit)
                } catch is NIOTooManyBytesError {
                    let length = response.headers.first(name: "content-length").map { " (Content-Length: \($0))" } ?? ""
                    throw DepotError(
                        .responseTooLarge, "the answer is larger than the \(limit) bytes allowed\(length)",
                        request: summary,
                        status: status, responseHeaders: DepotError.Headers(headers)
                    )
                }
                return NetworkResponse(status: status, headers: headers, body: Data(body.readableBytesView))
            } catch {
                throw map(error, request: summary, timeout: timeout)
            }
        }

        /// Every field of `headers`, in the order received, repeated names kept.
        private static func fields(of headers: HTTPHeaders) -> HTTPFields {
            var fields = HTTPFields()
            for (name, value) in headers {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            return fields
        }

        private static func map(_ error: any Error, request: DepotError.Request, timeout: Duration) -> DepotError {
            if let error = error as? DepotError { return error }
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
