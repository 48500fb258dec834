import AsyncHTTPClient
import Depot
import DepotAsyncHTTPClient
import DepotTesting
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// The DepotTesting StubServer against the smallest swift-nio HTTP/1.1 server that answers the
// same bytes (TCP_NODELAY, keep-alive, one event-loop thread each), through the same
// AsyncHTTPClient, in the same run. The servers take turns, round after round, so a slow spell
// of the machine hits both: compare the spread of each with the gap between them.

/// Answers every request with one fixed JSON body: the floor for a NIO HTTP/1.1 server.
private final class MinimalHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let body: ByteBuffer

    init(body: ByteBuffer) { self.body = body }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// A minimal NIO HTTP/1.1 server on 127.0.0.1, port 0.
private struct MinimalServer {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    var url: URL { URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)")! }

    static func start(body: Data) async throws -> MinimalServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let buffer = ByteBuffer(bytes: body)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MinimalHandler(body: buffer))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return MinimalServer(group: group, channel: channel)
    }

    func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

@MainActor func stubServerRatios() async throws {
    let requests = 2_000
    let rounds = 5
    let object: JSONObject = ["id": "42", "text": "message 42"]
    let body = try JSON.object(object).serialized()

    let minimal = try await MinimalServer.start(body: body)
    let stub = try await StubServer.start(threads: 1)
    stub.route(.get, "/fixed", response: .json(.object(object)))
    stub.resource("messages", objects: (1...100).map { ["id": .string(String($0)), "text": .string("message \($0)")] })
    let big = 10_000
    stub.resource("big", objects: (1...big).map { ["id": .string(String($0)), "text": .string("message \($0)")] })
    let client = AsyncHTTPClientSession.defaultClient
    let raw = RawAsyncHTTPClient(client: client)
    @Sendable func put(_ url: URL, _ index: Int) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"id":"\#(index % big + 1)","text":"edit \#(index)"}"#))
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
    }

    let (minimalURL, stubURL) = (minimal.url, stub.url)
    let targets: [(name: String, request: @Sendable (Int) async throws -> Void)] = [
        (
            "minimal NIO server, GET (baseline)",
            { _ in _ = try await raw.get(minimalURL.appendingPathComponent("fixed")) }
        ),
        ("StubServer, fixed route GET", { _ in _ = try await raw.get(stubURL.appendingPathComponent("fixed")) }),
        (
            "StubServer, resource GET /messages/:id",
            { _ = try await raw.get(stubURL.appendingPathComponent("messages/\($0 % 100 + 1)")) }
        ),
        (
            "minimal NIO server, PUT (baseline)",
            { try await put(minimalURL.appendingPathComponent("big/\($0 % big + 1)"), $0) }
        ),
        (
            "StubServer, resource PUT, \(big) objects",
            { try await put(stubURL.appendingPathComponent("big/\($0 % big + 1)"), $0) }
        ),
    ]
    for target in targets {
        for index in 0..<300 { try await target.request(index) }
    }
    print(
        "== Stub server vs a minimal swift-nio HTTP/1.1 server, same AsyncHTTPClient: \(requests) requests per round, \(rounds) rounds, servers taking turns"
    )
    var sequential = Array(repeating: [Double](), count: targets.count)
    var concurrent = Array(repeating: [Double](), count: targets.count)
    for _ in 0..<rounds {
        for (index, target) in targets.enumerated() {
            let seconds = try await time { for request in 0..<requests { try await target.request(request) } }
            sequential[index].append(Double(requests) / seconds.seconds)
        }
        for (index, target) in targets.enumerated() {
            let seconds = try await time { try await concurrently(requests, lanes: 8, target.request) }
            concurrent[index].append(Double(requests) / seconds.seconds)
        }
    }
    print("median req/s, time ratio against the minimal server (same method), spread (max-min)/median, each round")
    for (mode, rates) in [("sequential", sequential), ("8-way", concurrent)] {
        for (index, target) in targets.enumerated() {
            let baseline = median(of: rates[target.name.contains("PUT") ? 3 : 0])
            let runs = rates[index].map { String(format: "%.0f", $0) }.joined(separator: ", ")
            let spread = (rates[index].max()! - rates[index].min()!) / median(of: rates[index]) * 100
            print(
                "\(target.name), \(mode)".padding(toLength: 50, withPad: " ", startingAt: 0),
                String(
                    format: "%7.0f req/s  %5.2fx  spread %3.0f%%  (%@)", median(of: rates[index]),
                    baseline / median(of: rates[index]), spread, runs))
        }
    }
    try await stub.shutdown()
    try await minimal.shutdown()
}

private func median(of values: [Double]) -> Double { values.sorted()[values.count / 2] }
