import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives every data task's answer for a ``NetworkingSession``: keeps the status and fields,
/// counts body bytes, and cancels a task whose answer passes its size limit (at once from
/// `Content-Length`, else as soon as the bytes received pass it), so nothing past the limit is held.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// One task's answer so far and the completion that awaits it.
    struct Exchange: Sendable {
        let completion: @Sendable (Result<NetworkResponse, any Error>) -> Void
        let request: DepotError.Request
        let limit: Int
        /// The attempt's timeout, named in a `.timeout` error.
        let timeout: Duration
        /// False for HEAD, whose Content-Length describes a body that never comes.
        let checksContentLength: Bool
        var status: Int?
        var headers = HTTPFields()
        var body = Data()
        /// Set when the answer passed the limit; the task was cancelled.
        var tooLarge: DepotError?

        init(
            completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void,
            request: DepotError.Request,
            limit: Int,
            timeout: Duration,
            checksContentLength: Bool
        ) {
            self.completion = completion
            self.request = request
            self.limit = limit
            self.timeout = timeout
            self.checksContentLength = checksContentLength
        }

        func tooLargeError(_ detail: String) -> DepotError {
            DepotError(
                .responseTooLarge, "the answer \(detail), more than the \(limit) bytes allowed", request: request,
                status: status, responseHeaders: DepotError.Headers(headers)
            )
        }
    }

    private let exchanges = LockedValue<[Int: Exchange]>([:])
    /// Whether a connection of this delegate's URLSession may be open: set by any answer (its
    /// connection goes back to libcurl's pool) and any failure past the connect. While it is false,
    /// the pool holds no connection a request could have been written to, so a failed connect is
    /// a request never sent. Set before the failure of a task that reused such a connection is
    /// told (one serial delegate queue, fed in libcurl's order).
    private let mayHoldConnection = LockedValue(false)
    /// Called when a connect fails on this URLSession after a connection may have been open: the
    /// session starts a fresh URLSession (an empty pool) for the requests that follow.
    let onRefusalAfterConnection: @Sendable (SessionDelegate) -> Void

    /// Makes a delegate; `onRefusalAfterConnection` as above, given this delegate.
    init(onRefusalAfterConnection: @escaping @Sendable (SessionDelegate) -> Void = { _ in }) {
        self.onRefusalAfterConnection = onRefusalAfterConnection
    }

    /// Starts tracking the task with `identifier`.
    func register(_ identifier: Int, _ exchange: Exchange) {
        exchanges.withLock { $0[identifier] = exchange }
    }

    /// Settles the task with `identifier` once; later calls do nothing.
    func finish(_ identifier: Int, with result: Result<NetworkResponse, DepotError>) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: identifier) }
        exchange?.completion(result.mapError { $0 as any Error })
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        mayHoldConnection.withLock { $0 = true }
        let http = response as? HTTPURLResponse
        let fields = http.map(Self.fields) ?? HTTPFields()
        let length = response.expectedContentLength
        let allowed = exchanges.withLock { exchanges -> Bool in
            guard let exchange = exchanges[dataTask.taskIdentifier] else { return true }
            let status = http?.statusCode ?? 200
            let tooLarge =
                exchange.checksContentLength && status != 204 && status != 304 && length > Int64(exchange.limit)
            // Mutated in place: a copy of the exchange would copy its body on every append.
            exchanges[dataTask.taskIdentifier]?.status = http?.statusCode
            exchanges[dataTask.taskIdentifier]?.headers = fields
            if tooLarge, let exchange = exchanges[dataTask.taskIdentifier] {
                exchanges[dataTask.taskIdentifier]?.tooLarge = exchange.tooLargeError(
                    "announces \(length) bytes (Content-Length)")
            }
            return !tooLarge
        }
        // FoundationNetworking ignores the disposition, so cancel the task as well.
        completionHandler(allowed ? .allow : .cancel)
        if !allowed { dataTask.cancel() }
    }

    /// Never follows a redirect: the exchange ends here with the 3xx answer (its status and
    /// fields; its body, which FoundationNetworking keeps until the handler answers, is left
    /// empty), and the pipeline decides (``RequestPipeline/followingRedirects(_:)``), as it does for
    /// every transport. The task is then cancelled and `completionHandler` is never called.
    ///
    /// Calling it can trap the process. FoundationNetworking's `_HTTPURLProtocol.redirectFor`
    /// sets the state `.waitingForRedirectCompletionHandler`, calls this method on the delegate
    /// queue, and the handler hops back to the task's work queue to run
    /// `didCompleteRedirectCallback`, which does
    /// `guard case .waitingForRedirectCompletionHandler = internalState else { fatalError("Received
    /// callback for HTTP redirection, but we're not waiting for it. …") }`. A `cancel()` (the
    /// pipeline's timeout, a cancelled Task) or the request's own timeout landing on the work queue
    /// in between moves the state on (`stopLoading` → `.transferFailed` → `.taskCompleted`; the
    /// timeout handler → `.taskCompleted`), so the handler's answer, however promptly given,
    /// traps. Reproduced by `RedirectCancelTests`: the task is cancelled while this callback is
    /// pending, and the answer comes after the cancellation's `didCompleteWithError`.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        mayHoldConnection.withLock { $0 = true }
        let answer = NetworkResponse(status: response.statusCode, headers: Self.fields(of: response), body: Data())
        finish(task.taskIdentifier, with: .success(answer))
        // The cancellation's `didCompleteWithError` finds the exchange finished and does nothing.
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = exchanges.withLock { exchanges -> Bool in
            let identifier = dataTask.taskIdentifier
            // No copy of the exchange stays alive while its body grows: appending to a shared
            // body would copy it every time.
            guard let limit = exchanges[identifier]?.limit, exchanges[identifier]?.tooLarge == nil else { return false }
            let received = (exchanges[identifier]?.body.count ?? 0) + data.count
            guard received > limit else {
                exchanges[identifier]?.body.append(data)
                return false
            }
            exchanges[identifier]?.body = Data()
            if let exchange = exchanges[identifier] {
                exchanges[identifier]?.tooLarge = exchange.tooLargeError("passed \(received) bytes")
            }
            return true
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0[task.taskIdentifier] }) else { return }
        let result: Result<NetworkResponse, DepotError>
        if let tooLarge = exchange.tooLarge {
            result = .failure(tooLarge)
        } else if let error {
            var failure = NetworkingSession.map(error, request: exchange.request, timeout: exchange.timeout)
            if Self.failedToConnect(error) {
                let connected = mayHoldConnection.withLock { $0 }
                if connected {
                    // libcurl may have written the request to a kept-alive connection, found it
                    // dead and connected again (refused): maybe sent. The next request starts on
                    // an empty pool, where a refusal is a fact.
                    onRefusalAfterConnection(self)
                } else {
                    failure.underlying = RequestNotSent(cause: error)
                }
            } else if (error as? URLError)?.code != .cancelled {
                mayHoldConnection.withLock { $0 = true }
            }
            result = .failure(failure)
        } else if let status = exchange.status {
            result = .success(NetworkResponse(status: status, headers: exchange.headers, body: exchange.body))
        } else {
            result = .failure(DepotError(.transport, "no HTTP response", request: exchange.request))
        }
        finish(task.taskIdentifier, with: result)
    }

    /// Whether `error` is a connection that was never made: refused, no route, or no address.
    static func failedToConnect(_ error: any Error) -> Bool {
        guard let code = (error as? URLError)?.code else { return false }
        return [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed].contains(code)
    }

    /// The fields of `response`. URLSession keeps one value per name (FoundationNetworking joins a
    /// repeated field's values with ", "), so each name gives one field; names are sorted.
    static func fields(of response: HTTPURLResponse) -> HTTPFields {
        var fields = HTTPFields()
        let pairs = response.allHeaderFields.compactMap { name, value -> (key: String, name: String, value: String)? in
            guard let name = name as? String, let value = value as? String else { return nil }
            return (name.lowercased(), name, value)
        }
        for (_, name, value) in pairs.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return fields
    }
}
