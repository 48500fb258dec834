import Depot
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 for tests and examples: programmable routes, a record of
/// every request, in-memory REST resources with json-server semantics, and fault injection.
///
/// ```swift
/// try await withStubServer { server in
///     server.resource("messages")
///     let session = NetworkingSession(url: server.url)
///     _ = try await MessageRepository(store: session).create(["text": "hi"]).value
///     #expect(server.requests.last?.method == "POST")
/// }
/// ```
public final class StubServer: Sendable {
    /// The port the server is bound to (chosen by the system).
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    let state = LockedValue(State())
    private let group: MultiThreadedEventLoopGroup
    private let listener: LockedValue<(any Channel)?>
    /// While offline: the socket that holds the port (``StubPortHold``).
    private let portHold = LockedValue<Int32?>(nil)

    struct State {
        var routes: [(pattern: RoutePattern, handler: @Sendable (RecordedRequest, [String: String]) -> StubResponse)] =
            []
        var observers: [(pattern: RoutePattern, observer: @Sendable (RecordedRequest) -> Void)] = []
        var resources: [String: StubResource] = [:]
        var faults: [(fault: StubFault, remaining: Int, pathPrefix: String?)] = []
        var requests: [RecordedRequest] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
        var streams: [StubStreamRecord] = []
        /// 2xx answers to resource writes, by `Idempotency-Key` (StubServer+Idempotency.swift).
        var rememberedAnswers: [String: RememberedAnswer] = [:]
        var appliedWrites: [StubAppliedWrite] = []
        var appliedSequence = 0
        var replayedWrites = 0
        /// `Idempotency-Key`s whose first request was applied and is not answered yet
        /// (StubServer+Idempotency.swift).
        var keysInProcessing: Set<String> = []
        /// How resources answer for HTTP caching (StubServer+Caching.swift).
        var caching = StubCaching()
    }

    private init(port: Int, group: MultiThreadedEventLoopGroup, listener: any Channel) {
        self.port = port
        self.group = group
        self.listener = LockedValue(listener)
    }

    /// Starts a server on 127.0.0.1, port 0 (the system picks one; read it from ``port``).
    ///
    /// - Parameter threads: event-loop threads (1 is plenty for tests).
    public static func start(threads: Int = 1) async throws -> StubServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let box = ServerBox()
        let channel = try await bind(group: group, port: 0, box: box)
        let server = StubServer(port: channel.localAddress?.port ?? 0, group: group, listener: channel)
        box.server.withLock { $0 = server }
        return server
    }

    private static func bind(group: MultiThreadedEventLoopGroup, port: Int, box: ServerBox) async throws -> any Channel
    {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Shared with the port's hold (``StubPortHold``), so the port is never free between
            // the listener and its hold, either way (another test's connection could borrow it).
            .serverChannelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(StubHandler(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
    }

    /// Stops accepting, closes every connection and stops the event loops.
    public func shutdown() async throws {
        try? await goOffline()
        releasePort()
        try await group.shutdownGracefully()
    }

    // MARK: Programming

    /// Answers requests matching `method` and `pattern` (`:name` matches a segment, `*` the rest)
    /// with what `handler` returns. Later routes take precedence; routes beat resources.
    public func route(
        _ method: NetworkRequest.Method?,
        _ pattern: String,
        handler: @escaping @Sendable (RecordedRequest, _ parameters: [String: String]) -> StubResponse
    ) {
        state.withLock { $0.routes.insert((RoutePattern(method: method?.rawValue, pattern: pattern), handler), at: 0) }
    }

    /// Answers requests matching `method` and `pattern` with a fixed response.
    public func route(_ method: NetworkRequest.Method?, _ pattern: String, response: StubResponse) {
        route(method, pattern) { _, _ in response }
    }

    /// Calls `observer` with every request matching `method` and `pattern` (as ``route(_:_:handler:)``
    /// matches), before the server answers it, however it answers: a test makes something happen
    /// while that request is in flight. It runs outside the server's lock, on its event loop, and
    /// holds the answer (and that loop) until it returns: keep it short.
    public func observe(
        _ method: NetworkRequest.Method?, _ pattern: String, _ observer: @escaping @Sendable (RecordedRequest) -> Void
    ) {
        state.withLock { $0.observers.append((RoutePattern(method: method?.rawValue, pattern: pattern), observer)) }
    }

    /// Serves an in-memory REST collection at `/<name>` with json-server semantics: POST assigns an
    /// id and answers 201 with the object; GET lists (exact-match filters from the query) or reads
    /// by id; PUT replaces; PATCH merges (RFC 7396, `Content-Type: application/merge-patch+json`,
    /// else 415); DELETE answers 204; a missing id answers 404. Single-object answers carry an
    /// `ETag` that changes with the object; PUT, PATCH and DELETE honour `If-Match` (412 with the
    /// current object). `GET /<name>?_page=N&_limit=M` pages with `X-Total-Count` and `Link`.
    /// `POST /<name>/collection` stores a JSON array (see ``setBatchReply(_:for:)``). A name with a
    /// trailing slash (`"messages/"`) serves `/messages/` and redirects `/messages` there (301), as
    /// Django REST Framework does; items answer with or without the slash. A write carrying an
    /// `Idempotency-Key` seen before gets the first 2xx answer again and is not applied twice (422
    /// when the key came with another method or path); ``appliedWrites`` lists what was applied.
    public func resource(_ name: String, idStyle: StubIDStyle = .string, objects: [JSONObject] = []) {
        let resource = StubResource(name: name, idStyle: idStyle, objects: objects)
        state.withLock { $0.resources[resource.name] = resource }
    }

    /// The objects a resource holds now.
    public func objects(in resource: String) -> [JSONObject] {
        state.withLock { $0.resources[StubResource.key(for: resource)]?.objects ?? [] }
    }

    /// Injects `fault` into the next `times` requests (whose path starts with `pathPrefix`, if given).
    public func inject(_ fault: StubFault, times: Int = 1, pathPrefix: String? = nil) {
        precondition(times > 0, "times must be positive")
        state.withLock { $0.faults.append((fault, times, pathPrefix)) }
    }

    /// Removes every injected fault.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// Forgets the recorded requests.
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// What the server wrote for each streamed body (``StubResponse/stream(bytes:chunkSize:contentLength:interval:status:headers:)``),
    /// in the order the streams started.
    public var streams: [StubStreamRecord] { state.withLock { $0.streams } }

    /// Records a new stream and returns its index in ``streams``.
    func beginStream(path: String, offered: Int) -> Int {
        state.withLock { state in
            state.streams.append(
                StubStreamRecord(path: path, bytesOffered: offered, bytesWritten: 0, isFinished: false))
            return state.streams.count - 1
        }
    }

    /// Adds `written` bytes to stream `index`, and marks it finished when `finished`.
    func updateStream(_ index: Int, written: Int, finished: Bool) {
        state.withLock { state in
            guard state.streams.indices.contains(index) else { return }
            state.streams[index].bytesWritten += written
            if finished { state.streams[index].isFinished = true }
        }
    }

    // MARK: Offline

    /// Closes the listening socket and every open connection: new connections are refused.
    public func goOffline() async throws {
        let (channel, connections) = takeListenerAndConnections()
        // The port stays this server's while it is offline: no other server is given it, and no
        // client connection borrows it as its local port. Held before the listener closes.
        if channel != nil { holdPort() }
        try await channel?.close()
        for connection in connections { try? await connection.close() }
    }

    /// Holds the port while offline (a hold already taken is kept).
    private func holdPort() {
        portHold.withLock { held in
            if held == nil { held = StubPortHold.hold(port) }
        }
    }

    /// Lets the held port go.
    private func releasePort() {
        let fd = portHold.withLock { held in
            defer { held = nil }
            return held
        }
        if let fd { StubPortHold.release(fd) }
    }

    /// Listens again on the same port after ``goOffline()``.
    public func goOnline() async throws {
        guard listener.withLock({ $0 == nil }) else { return }
        let box = ServerBox()
        box.server.withLock { $0 = self }
        // The hold goes only once the new listener is bound (both share the port).
        let channel = try await Self.rebind(group: group, port: port, box: box)
        listener.withLock { $0 = channel }
        releasePort()
    }

    /// Binds `port` again, waiting (at most about 10 s) while the kernel has lent it meanwhile as
    /// the local port of a client connection (to another server): that connection's close frees it.
    private static func rebind(group: MultiThreadedEventLoopGroup, port: Int, box: ServerBox) async throws
        -> any Channel
    {
        var attempt = 0
        while true {
            do {
                return try await bind(group: group, port: port, box: box)
            } catch let error as IOError where error.errnoCode == EADDRINUSE && attempt < 200 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Closes the listening socket (open connections stay); nil when it was closed already.
    func stopListening() -> EventLoopFuture<Void>? {
        // The open connections close too (once the listener has), so no kept-alive connection
        // carries the retry: the client must reconnect, and is refused.
        let (channel, connections) = takeListenerAndConnections()
        guard let channel else {
            for connection in connections { connection.close(promise: nil) }
            return nil
        }
        // The port stays this server's while it is offline (see goOffline()).
        holdPort()
        let closed = channel.close()
        closed.whenComplete { _ in
            for connection in connections { connection.close(promise: nil) }
        }
        return closed
    }

    /// Takes the listening channel and the open connections out of the server's state: from now
    /// on it is offline (closing them is the caller's).
    private func takeListenerAndConnections() -> (listener: (any Channel)?, connections: [any Channel]) {
        let channel = listener.withLock { listener in
            defer { listener = nil }
            return listener
        }
        let connections = state.withLock { state in
            defer { state.connections.removeAll() }
            return Array(state.connections.values)
        }
        return (channel, connections)
    }

    /// True while the server accepts connections.
    public var isOnline: Bool { listener.withLock { $0 != nil } }

    // MARK: Answering

    enum Reply {
        case respond(StubResponse)
        case drop
        case dieMidResponse
        /// Stop listening, then close the connection without answering.
        case dropAndGoOffline
    }

    /// What the lock-held part of ``reply(to:)`` decided: a reply, or a route handler to call
    /// after the lock is released (user code never runs under the server's lock).
    private enum Plan {
        case reply(Reply)
        case handler(
            @Sendable (RecordedRequest, [String: String]) -> StubResponse, [String: String], delay: Duration?,
            gate: StubGate?, thenDrop: Reply?)
    }

    func reply(to request: RecordedRequest) -> Reply {
        let observers = state.withLock { state in
            state.observers.filter { $0.pattern.match(method: request.method, rawPath: request.rawPath) != nil }
        }
        for (_, observer) in observers { observer(request) }
        let plan: Plan = state.withLock { state in
            state.requests.append(request)
            var delay: Duration?
            var gate: StubGate?
            var thenDrop: Reply?
            if let index = state.faults.firstIndex(where: { $0.pathPrefix.map(request.path.hasPrefix) ?? true }) {
                let fault = state.faults[index].fault
                state.faults[index].remaining -= 1
                if state.faults[index].remaining <= 0 { state.faults.remove(at: index) }
                switch fault {
                case .status(let status, let headers):
                    return .reply(
                        .respond(
                            .json(["error": .string("injected fault \(status)")], status: status, headers: headers)))
                case .malformedJSON:
                    return .reply(
                        .respond(
                            StubResponse(
                                status: 200, headers: ["Content-Type": "application/json"],
                                body: Data("{\"id\": \"1\", \"text\": ".utf8))))
                case .delay(let duration):
                    delay = duration
                case .hold(let held):
                    gate = held
                case .dropConnection:
                    return .reply(.drop)
                case .applyThenDropConnection:
                    thenDrop = .drop
                case .applyThenGoOffline:
                    thenDrop = .dropAndGoOffline
                case .dieMidResponse:
                    return .reply(.dieMidResponse)
                }
            }
            for route in state.routes {
                if let parameters = route.pattern.match(method: request.method, rawPath: request.rawPath) {
                    return .handler(route.handler, parameters, delay: delay, gate: gate, thenDrop: thenDrop)
                }
            }
            var response = Self.answerFromResources(request, state: &state)
            response = Self.applyingCaching(response, to: request, caching: &state.caching)
            if let thenDrop { return .reply(thenDrop) }
            if let delay { response.delay = (response.delay ?? .zero) + delay }
            response.heldBy = gate
            if delay != nil || gate != nil {
                response.processingKey = Self.startProcessing(request, response, state: &state)
            }
            return .reply(.respond(response))
        }
        switch plan {
        case .reply(let reply):
            return reply
        case .handler(let handler, let parameters, let delay, let gate, let thenDrop):
            var response = handler(request, parameters)
            if let thenDrop { return thenDrop }
            if let delay { response.delay = (response.delay ?? .zero) + delay }
            // A route's own gate (``StubResponse/held(until:)``) stays unless a fault holds it.
            response.heldBy = gate ?? response.heldBy
            return .respond(response)
        }
    }

    /// The answer of the in-memory resources (no user code: safe under the lock).
    private static func answerFromResources(_ request: RecordedRequest, state: inout State) -> StubResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if let name = parts.first, state.resources[name] != nil, parts.count <= 2 {
            return answer(request, resource: name, id: parts.count == 2 ? parts[1] : nil, state: &state)
        }
        return .json(["error": .string("no route for \(request.method) \(request.path)")], status: 404)
    }

    func register(_ channel: any Channel) {
        state.withLock { $0.connections[ObjectIdentifier(channel)] = channel }
    }

    func unregister(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// Lets the channel initializer reach the server before `start` returns it.
final class ServerBox: Sendable {
    let server = LockedValue<StubServer?>(nil)
}

/// Starts a stub server, runs `body` with it, and shuts it down, even when `body` throws.
public func withStubServer<Result>(_ body: (StubServer) async throws -> Result) async throws -> Result {
    let server = try await StubServer.start()
    do {
        let result = try await body(server)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}
