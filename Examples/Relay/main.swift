import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

// Relay: a tiny server that keeps a local copy of a remote API in SQLite, answers reads from it,
// takes writes into the outbox (forwarded in the background), and shuts down gracefully on
// SIGTERM. `swift run Relay` serves until SIGTERM; `swift run Relay --demo` calls itself, then
// sends itself SIGTERM. The remote API is the embedded stub server unless `--remote URL` names
// one. `swift run --traits Postgres Relay --postgres URL` keeps the copy and the outbox in a
// PostgreSQL database that several replicas share (see RelayOptions).

struct Note: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

struct Notes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Note
    let store: Networking
    let storage: Storage
    let path = "notes"
    var strategy: Strategy { Strategy(Rule(target: .local, synchronize: false)) }  // the outbox sends
}

/// The HTTP side: `GET /notes` from the local copy, `POST /notes` into it and the outbox.
struct RelayServer: Service {
    let notes: Notes
    let port: Int
    let ready: @Sendable (Int) -> Void

    func run() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        ready(server.channel.localAddress?.port ?? 0)
        // Graceful shutdown closes the listening socket; connections under way finish.
        let listener = server.channel
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections { group.addTask { await serve(connection) } }
                }
            }
        } onGracefulShutdown: {
            listener.close(promise: nil)
        }
    }

    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let next): (head, body) = (next, ByteBuffer())
                case .body(var chunk): body.writeBuffer(&chunk)
                case .end:
                    guard let head else { continue }
                    let (status, json) = await answer(head, Data(body.readableBytesView))
                    let headers = HTTPHeaders([
                        ("Content-Type", "application/json"), ("Content-Length", "\(json.count)"),
                    ])
                    try await outbound.write(
                        .head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: json))))
                    try await outbound.write(.end(nil))
                }
            }
        }
    }

    private func answer(_ head: HTTPRequestHead, _ body: Data) async -> (HTTPResponseStatus, Data) {
        do {
            switch (head.method, head.uri) {
            case (.GET, "/notes"): return (.ok, try JSONEncoder().encode(try await notes.readAll().value.value))
            case (.POST, "/notes"):
                let note = try await notes.create(try JSONDecoder().decode(Note.self, from: body)).value
                return (.created, try JSONEncoder().encode(note.value))
            default: return (.notFound, Data(#"{"error":"no such route"}"#.utf8))
            }
        } catch {
            return (.badRequest, (try? JSONEncoder().encode(["error": "\(error)"])) ?? Data())
        }
    }
}

let options: RelayOptions
do {
    options = try RelayOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Relay-\(UUID())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let (storage, closeStorage): (Storage, @Sendable () async throws -> Void)
do {
    (storage, closeStorage) = try await options.openStorage(in: directory)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    try? FileManager.default.removeItem(at: directory)
    exit(error is RelayUsageError ? 64 : 1)
}
let embedded: StubServer? = options.remote == nil ? try await StubServer.start() : nil
embedded?.resource("notes", objects: [["id": "1", "text": "from the remote API"]])
let remoteURL = options.remote ?? embedded!.url
let notes = Notes(store: NetworkingSession(url: remoteURL), storage: storage)
let forwarder = Forwarder(for: notes)
let quiet = Logger(label: "relay") { _ in SwiftLogNoOpLogHandler() }
let sync = AutoSync(executor: ActionExecutor(maxConcurrent: 2, logger: quiet), every: .seconds(60))
sync.add(SynchronizeAction(notes))
sync.observe(forwarder)
let demo = options.demo
let relay = RelayServer(notes: notes, port: options.port) { port in
    // Written at once (print to a pipe or a file is buffered), so a script can read the ports.
    let line =
        "relay on http://127.0.0.1:\(port), remote API on \(remoteURL)"
        + (options.postgres == nil ? "" : ", store shared in PostgreSQL")
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    guard demo else { return }
    Task {
        let me = NetworkingSession(url: URL(string: "http://127.0.0.1:\(port)")!)
        _ = try await me.request(.post, "notes", body: ["id": "2", "text": "written through the relay"]).value
        try await Task.sleep(for: .milliseconds(300))  // AutoSync's first pull, the forwarder's send
        print("relay serves: \(try await me.request(.get, "notes").value)")
        let remote = try await NetworkingSession(url: remoteURL).request(.get, "notes").value
        print("remote has:   \((remote.arrayValue ?? []).map { $0["text"]?.stringValue ?? "" })")
        kill(getpid(), SIGTERM)
    }
}
let group = ServiceGroup(
    services: [relay, forwarder, sync], gracefulShutdownSignals: [.sigterm, .sigint],
    logger: quiet)
try await group.run()
print("relay stopped: \(try await storage.outboxCount(OutboxQuery(selection: .pending))) writes still queued")
try await closeStorage()
try await embedded?.shutdown()
try? FileManager.default.removeItem(at: directory)
