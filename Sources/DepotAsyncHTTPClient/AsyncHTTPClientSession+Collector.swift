#if AsyncHTTPClient
    import AsyncHTTPClient
    import Depot
    import Foundation
    import NIOCore
    import NIOHTTP1

    /// Collects one answer for an ``AsyncHTTPClientSession``: status, fields and body, refusing a
    /// body past the size limit (at once from `Content-Length`, except for HEAD and 304, else as soon
    /// as the bytes read pass it), which fails and cancels the request.
    final class ResponseCollector: HTTPClientResponseDelegate {
        typealias Response = NetworkResponse

        private struct State {
            var status = 0
            var headers = HTTPHeaders()
            var body: ByteBuffer?
        }

        let request: DepotError.Request
        let limit: Int
        /// False for HEAD, whose Content-Length describes a body that never comes.
        let checksContentLength: Bool
        /// Written on the request's event loop only; the lock satisfies `Sendable`.
        private let state = LockedValue(State())

        init(request: DepotError.Request, limit: Int, checksContentLength: Bool) {
            self.request = request
            self.limit = limit
            self.checksContentLength = checksContentLength
        }

        func didReceiveHead(task: HTTPClient.Task<NetworkResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            let status = Int(head.status.code)
            state.withLock { state in
                state.status = status
                state.headers = head.headers
            }
            if checksContentLength, status != 304, let length = head.headers.first(name: "content-length"),
                let announced = Int(length, radix: 10), announced > limit
            {
                return task.eventLoop.makeFailedFuture(tooLarge(status: status, headers: head.headers))
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<NetworkResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            let refused = state.withLock { state -> (status: Int, headers: HTTPHeaders)? in
                guard (state.body?.readableBytes ?? 0) + buffer.readableBytes <= limit else {
                    state.body = nil
                    return (state.status, state.headers)
                }
                if state.body == nil {
                    state.body = buffer
                } else {
                    var buffer = buffer
                    state.body?.writeBuffer(&buffer)
                }
                return nil
            }
            if let refused {
                return task.eventLoop.makeFailedFuture(tooLarge(status: refused.status, headers: refused.headers))
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<NetworkResponse>) throws -> NetworkResponse {
            let (status, headers, body) = state.withLock { ($0.status, $0.headers, $0.body) }
            return NetworkResponse(
                status: status, headers: AsyncHTTPClientSession.fields(of: headers),
                body: body.map { Data($0.readableBytesView) } ?? Data())
        }

        private func tooLarge(status: Int, headers: HTTPHeaders) -> DepotError {
            let length = headers.first(name: "content-length").map { " (Content-Length: \($0))" } ?? ""
            return DepotError(
                .responseTooLarge, "the answer is larger than the \(limit) bytes allowed\(length)", request: request,
                status: status, responseHeaders: DepotError.Headers(AsyncHTTPClientSession.fields(of: headers))
            )
        }
    }

    /// A request under way on an `HTTPClient`: cancelling it fails it with `HTTPClientError.cancelled`,
    /// reported as `DepotError` `.cancelled`.
    struct ClientTaskCall: NetworkCall {
        let task: HTTPClient.Task<NetworkResponse>

        func cancel() { task.cancel() }
    }

    /// A call that already completed: nothing to cancel.
    struct FinishedCall: NetworkCall {
        func cancel() {}
    }
#endif
