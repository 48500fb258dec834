#if AsyncHTTPClient
    import AsyncHTTPClient
    import Depot
    import Foundation
    import Metrics
    import NIOCore
    import NIOHTTP1
    import NIOPosix

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
        /// ``url``.
        public var baseURL: URL? { url }
        /// What this session learned about its server's routes; never shared with another session.
        public let routeMemory: RouteMemory? = RouteMemory()

        /// The configuration's `metricsFactory`.
        public var metricsFactory: (any MetricsFactory)? { pipeline.configuration.metricsFactory }
        /// The pipeline's: the account its interceptors declare (``Depot/RequestPipeline/account``).
        public var account: String? { pipeline.account }
        /// The shared pipeline: headers, interceptors, retries, logging.
        public let pipeline: RequestPipeline
        /// The client requests go through.
        public let client: HTTPClient
        private let ownsClient: Bool
        /// Starts one attempt on `client`; made once.
        private let attempt: RequestPipeline.StartAttempt
        /// The process-wide client sessions use by default: never shut down, no connection retries.
        public static let defaultClient: HTTPClient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: clientConfiguration(insecure: false)
        )

        static func clientConfiguration(insecure: Bool) -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.retryConnectionEstablishment = false
            // Depot's pipeline follows redirects, alike on both transports.
            configuration.redirectConfiguration = .disallow
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
            let (client, limit) = (self.client, configuration.maximumResponseSize)
            // async-http-client's deadline stands, and Depot's timer bounds the attempt as on
            // every transport, redirects included.
            attempt = RequestPipeline.limitingTime(
                RequestPipeline.followingRedirects { request, url, summary, timeout, completion in
                    Self.start(
                        client: client, request: request, url: url, summary: summary, timeout: timeout,
                        limit: limit, completion: completion)
                })
        }

        /// Shuts down a client this session created; does nothing to a shared or borrowed one.
        public func shutdown() async throws {
            if ownsClient { try await client.shutdown() }
        }

        /// `request` with the session's headers merged and its interceptors run.
        public func prepared(_ request: NetworkRequest) async throws -> NetworkRequest {
            try await pipeline.prepared(request)
        }

        /// Sends `request` through the pipeline and async-http-client.
        public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
            let attempt = self.attempt
            return try await pipeline.send(request) { request, url, timeout in
                try await RequestPipeline.awaiting(attempt, request, url: url, timeout: timeout)
            }
        }

        /// Sends `request` through the pipeline and async-http-client, calling `completion` on the
        /// client's event loop when the answer is in: no task per request.
        @discardableResult
        public func send(
            _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
        ) -> any NetworkCall {
            pipeline.send(request, attempt: attempt, completion: completion)
        }

        /// Starts one request on `client`; `completion` runs on its event loop.
        static func start(
            client: HTTPClient, request: NetworkRequest, url: URL, summary: DepotError.Request, timeout: Duration,
            limit: Int, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
        ) -> any NetworkCall {
            let outgoing: HTTPClient.Request
            do {
                var headers = HTTPHeaders()
                for field in request.headers { headers.add(name: field.name.rawName, value: field.value) }
                outgoing = try HTTPClient.Request(
                    url: url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                    body: request.body.map { .byteBuffer(ByteBuffer(bytes: $0)) })
            } catch {
                completion(.failure(map(error, request: summary, timeout: timeout)))
                return FinishedCall()
            }
            let collector = ResponseCollector(
                request: summary, limit: limit, checksContentLength: request.method != .head)
            let task = client.execute(
                request: outgoing, delegate: collector,
                deadline: .now() + .nanoseconds(max(timeout.nanoseconds, 1_000_000)))
            task.futureResult.whenComplete { result in
                completion(result.mapError { map($0, request: summary, timeout: timeout) })
            }
            return ClientTaskCall(task: task)
        }

        /// Every field of `headers`, in the order received, repeated names kept.
        static func fields(of headers: HTTPHeaders) -> HTTPFields {
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
            // A connection that was never made (refused, no route, no address) carried nothing:
            // async-http-client writes a request only on a connection it made, and never sends a
            // written request again, so this is a fact, not a guess.
            let underlying: any Error = neverConnected(error) ? RequestNotSent(cause: error) : error
            return DepotError(.transport, "\(error)", request: request, underlying: underlying)
        }

        /// Whether `error` is a connect that failed: NIO's connection error (every address tried),
        /// or a refused, unreachable connect.
        private static func neverConnected(_ error: any Error) -> Bool {
            if error is NIOConnectionError { return true }
            guard let error = error as? IOError else { return false }
            return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode)
        }
    }
#endif
