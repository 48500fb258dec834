import Depot
import NIOCore
import NIOHTTP1

extension StubHandler {
    /// Writes the head, then the generated body one chunk at a time: the next chunk goes out only
    /// when the previous one reached the socket, and writing stops for good once a write fails or
    /// the connection is closed (the client went away). The server's ``StubServer/streams`` record
    /// counts the bytes written.
    func startStream(
        _ stream: StubStreamedBody,
        status: Int,
        headers: HTTPHeaders,
        path: String,
        version: HTTPVersion,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        guard let server = box.server.withLock({ $0 }) else { return }
        var headers = headers
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if stream.sendsContentLength {
            headers.add(name: "Content-Length", value: String(stream.bytes))
        } else {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers)
        let channel = context.channel
        let index = server.beginStream(path: path, offered: stream.bytes)
        let chunk = channel.allocator.buffer(
            repeating: UInt8(ascii: "x"), count: min(stream.chunkSize, max(stream.bytes, 1)))
        channel.writeAndFlush(HTTPServerResponsePart.head(head)).whenComplete { result in
            switch result {
            case .success:
                Self.writeChunks(
                    remaining: stream.bytes, chunk: chunk, interval: stream.interval, index: index, server: server,
                    channel: channel, keepAlive: keepAlive)
            case .failure:
                server.updateStream(index, written: 0, finished: true)
            }
        }
    }

    private static func writeChunks(
        remaining: Int, chunk: ByteBuffer, interval: Duration?, index: Int, server: StubServer, channel: any Channel,
        keepAlive: Bool
    ) {
        guard channel.isActive else {
            server.updateStream(index, written: 0, finished: true)
            return
        }
        guard remaining > 0 else {
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
                server.updateStream(index, written: 0, finished: true)
                if !keepAlive { channel.close(promise: nil) }
            }
            return
        }
        let size = min(remaining, chunk.readableBytes)
        let part = chunk.getSlice(at: chunk.readerIndex, length: size) ?? chunk
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(part))).whenComplete { result in
            switch result {
            case .success:
                server.updateStream(index, written: size, finished: false)
                let next: @Sendable () -> Void = {
                    writeChunks(
                        remaining: remaining - size, chunk: chunk, interval: interval, index: index, server: server,
                        channel: channel, keepAlive: keepAlive)
                }
                // Through the event loop, so writes that complete at once never nest on the stack.
                if let interval, interval > .zero {
                    channel.eventLoop.scheduleTask(in: .nanoseconds(interval.nanoseconds)) { next() }
                } else {
                    channel.eventLoop.execute { next() }
                }
            case .failure:
                server.updateStream(index, written: 0, finished: true)
                channel.close(promise: nil)
            }
        }
    }
}
