import Depot
import Foundation
import NIOCore
import NIOHTTP1

/// Reads one request at a time from a connection, records it and writes the server's reply.
final class StubHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let box: ServerBox
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?

    init(box: ServerBox) { self.box = box }

    func channelActive(context: ChannelHandlerContext) {
        box.server.withLock { $0 }?.register(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        box.server.withLock { $0 }?.unregister(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
        case .body(var chunk):
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
        case .end:
            guard let head, let server = box.server.withLock({ $0 }) else { return }
            self.head = nil
            let request = Self.record(head, body: body)
            body = nil
            answer(server.reply(to: request), to: head, request: request, server: server, context: context)
        }
    }

    /// Writes `reply` to the request `head` / `request` on `context`.
    private func answer(
        _ reply: StubServer.Reply, to head: HTTPRequestHead, request: RecordedRequest, server: StubServer,
        context: ChannelHandlerContext
    ) {
        switch reply {
        case .drop:
            context.close(promise: nil)
        case .dropAndGoOffline:
            // The listener closes first: a reconnect made once this connection closes is refused.
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let closed = server.stopListening() ?? context.eventLoop.makeSucceededVoidFuture()
            closed.hop(to: context.eventLoop).whenComplete { _ in bound.value.close(promise: nil) }
        case .dieMidResponse:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "1000")
            headers.add(name: "Content-Type", value: "application/json")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
            var partial = context.channel.allocator.buffer(capacity: 16)
            partial.writeString("{\"id\": \"1\", ")
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(partial))), promise: nil)
            context.close(promise: nil)
        case .respond(let response) where response.heldBy != nil:
            // Held until the test opens the gate, then answered as without it.
            let released = {
                var released = response
                released.heldBy = nil
                return released
            }()
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            response.heldBy?.whenOpen {
                eventLoop.execute {
                    let (handler, context) = bound.value
                    handler.answer(.respond(released), to: head, request: request, server: server, context: context)
                }
            }
        case .respond(let response):
            let keepAlive = head.isKeepAlive
            if let delay = response.delay, delay > .zero {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .nanoseconds(delay.nanoseconds)) {
                    let (handler, context) = bound.value
                    // Answered (or the client went away): the key's request is processed.
                    if let key = response.processingKey { server.finishProcessing(key) }
                    handler.write(
                        response, path: request.path, version: head.version, keepAlive: keepAlive, context: context)
                }
            } else {
                if let key = response.processingKey { server.finishProcessing(key) }
                write(response, path: request.path, version: head.version, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(
        _ response: StubResponse, path: String, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders()
        for field in response.headers { headers.add(name: field.name.rawName, value: field.value) }
        if let stream = response.streamedBody {
            startStream(
                stream, status: response.status, headers: headers, path: path, version: version, keepAlive: keepAlive,
                context: context)
            return
        }
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private static func record(_ head: HTTPRequestHead, body: ByteBuffer?) -> RecordedRequest {
        let uri = head.uri
        let rawPath = String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        // Foundation's URL parsing and percent-decoding are most of the cost of recording a
        // request: run them only when there is a query or an escape.
        let components = uri.utf8.contains(UInt8(ascii: "?")) ? URLComponents(string: "http://stub" + uri) : nil
        let path = rawPath.utf8.contains(UInt8(ascii: "%")) ? rawPath.removingPercentEncoding ?? rawPath : rawPath
        var headers = HTTPFields()
        for (name, value) in head.headers {
            if let fieldName = HTTPField.Name(name) { headers.append(HTTPField(name: fieldName, value: value)) }
        }
        return RecordedRequest(
            method: head.method.rawValue,
            path: path,
            rawPath: rawPath,
            queryItems: components?.queryItems ?? [],
            headers: headers,
            body: body.map { Data($0.readableBytesView) } ?? Data(),
            rawQuery: uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
                .map(String.init)
        )
    }
}
