import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A test server on a real framework (`Tests/Servers`), started as a child process on a free
/// loopback port: Django REST Framework, FastAPI, Django REST Framework JSON:API, flask-smorest,
/// django-ninja, django-tastypie or piccolo_api's `PiccoloCRUD`, from a pinned venv that
/// `scripts/python-servers` makes, or Rails' API scaffold, from Debian's Ruby packages. Without
/// Python or PyPI (Ruby and Rails) the suites say so and skip, except in CI (`CI=true`), where a
/// server that cannot start fails the test.
final class RealServer: Sendable {
    enum Kind: String, Sendable {
        case djangoREST = "drf"
        case fastAPI = "fastapi"
        case jsonAPI = "drf_jsonapi"
        case smorest = "smorest"
        case ninja = "ninja"
        case tastypie = "tastypie"
        case piccolo = "piccolo"
        /// Rails 6.1's API scaffold, run by Ruby (`Tests/Servers/rails/serve.rb`), not the venv.
        case rails = "rails"
    }

    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's python, or why there is none; made once per test process.
    static let python: Result<String, SetupFailure> = {
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.spawn(root.appendingPathComponent("scripts/python-servers").path, [])
        } catch {
            return .failure(SetupFailure(message: "cannot run scripts/python-servers: \(error)"))
        }
        let data = child.readToEnd()
        let status = child.wait()
        let last = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0, !last.isEmpty else {
            return .failure(SetupFailure(message: "scripts/python-servers failed (\(status))"))
        }
        return .success(last)
    }()

    /// Whether the real-server suites run: always in CI, else when the venv could be made.
    static var enabled: Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        if case .failure(let failure) = python {
            print("skipping the real-server suites: \(failure.message)")
            return false
        }
        return true
    }

    /// Whether Ruby can load Rails 6.1, SQLite and WEBrick (Debian's `ruby-rails`, `ruby-sqlite3`,
    /// `ruby-webrick`), or why not; asked once per test process.
    static let ruby: Result<Void, SetupFailure> = {
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.spawn(
                "/usr/bin/env", ["ruby", "-e", "require 'rails'; require 'sqlite3'; require 'webrick'"])
        } catch {
            return .failure(SetupFailure(message: "cannot run ruby: \(error)"))
        }
        _ = child.readToEnd()
        let status = child.wait()
        guard status == 0 else {
            return .failure(SetupFailure(message: "ruby cannot load rails, sqlite3 and webrick (\(status))"))
        }
        return .success(())
    }()

    /// Whether the Rails suite runs: always in CI, else when Ruby has Rails.
    static var railsEnabled: Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        if case .failure(let failure) = ruby {
            print("skipping the Rails suite: \(failure.message)")
            return false
        }
        return true
    }

    struct SetupFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    let url: URL
    /// The server's process; it exits when its stdin closes, at the latest when this process ends.
    private let child: SpawnedProcess

    private init(url: URL, child: SpawnedProcess) {
        self.url = url
        self.child = child
    }

    /// Starts a server of `kind` and waits (at most 60 s) for the port it bound. The waiting is
    /// done on a dispatch thread, never on one of the cooperative pool's (two on a 2-core
    /// machine): a Python server takes seconds to start, and every other test would wait for it.
    static func start(_ kind: Kind) async throws -> RealServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try startBlocking(kind) })
            }
        }
    }

    /// ``start(_:)``'s work, blocking the calling thread.
    private static func startBlocking(_ kind: Kind) throws -> RealServer {
        let child: SpawnedProcess
        if kind == .rails {
            try Self.ruby.get()
            let script = root.appendingPathComponent("Tests/Servers/rails/serve.rb").path
            child = try SpawnedProcess.spawn("/usr/bin/env", ["ruby", script])
        } else {
            let python = try Self.python.get()
            let script = root.appendingPathComponent("Tests/Servers/\(kind.rawValue)/serve.py").path
            child = try SpawnedProcess.spawn(python, [script])
        }
        // The first line is "PORT n"; the server writes nothing else to stdout.
        let text = String(decoding: child.readLine(timeout: 60), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)), (1...65535).contains(port) else {
            child.terminate()
            throw SetupFailure(message: "the \(kind) server did not report its port (printed \(text.debugDescription))")
        }
        return RealServer(url: URL(string: "http://127.0.0.1:\(port)")!, child: child)
    }

    /// The start of the server of each kind this test process uses: one Django or FastAPI start
    /// (and its migrations) per process instead of per test, awaited by every test of that kind.
    /// The server exits when the process ends (its stdin closes).
    private static let starts = LockedValue<[Kind: Task<RealServer, any Error>]>([:])

    /// Runs `body` with the server of `kind` reset to empty (no notes, ids from 1, no request log):
    /// what a fresh server holds. The suites using it are `.serialized`, so no two tests share it
    /// at once.
    static func with(_ kind: Kind, _ body: (RealServer) async throws -> Void) async throws {
        let start = starts.withLock { starts in
            if let start = starts[kind] { return start }
            let start = Task { try await Self.start(kind) }
            starts[kind] = start
            return start
        }
        let server = try await start.value
        try await server.control(.post, kind == .djangoREST || kind == .tastypie ? "__reset/" : "__reset")
        try await body(server)
    }

    /// Runs `body` with the server of `kind` reset (as ``with(_:_:)``) and the repository `make`
    /// builds on a session to it (20 s timeout) and a fresh SQLite store in a temporary directory.
    static func with<Repository>(
        _ kind: Kind, store make: (Networking, Storage) -> Repository,
        _ body: (RealServer, Repository) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await with(kind) { server in
            let storage = try SQLiteStorage(path: directory.path("\(kind.rawValue).sqlite"))
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
            try await body(server, make(session, storage))
        }
    }

    /// A control request (`/__reset/`, `/__seed/`, `/__requests/`), answered as JSON.
    @discardableResult
    func control(_ method: NetworkRequest.Method, _ path: String, _ body: JSON? = nil) async throws -> JSON {
        let session = NetworkingSession(url: url)
        var request = NetworkRequest(method: method, path: path)
        if let body {
            request.body = try body.serialized()
            request.headers[.contentType] = "application/json"
        }
        let response = try await session.send(request)
        return response.body.isEmpty ? .null : try JSON(parsing: response.body)
    }

    /// Every request the app handled since the last reset (the control endpoints left out).
    func requests(_ logPath: String) async throws -> [JSONObject] {
        try await control(.get, logPath).arrayValue?.compactMap(\.objectValue) ?? []
    }
}

/// A note, as both apps serve it: an integer id the server assigns.
struct ServerNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
}

/// `"METHOD /path status"` for each request of a server's log (``RealServer/requests(_:)``).
func requestSummaries(_ log: [JSONObject]) -> [String] {
    log.map { entry in
        let status = entry["status"]?.intValue.map { String($0) } ?? "-"
        return "\(entry["method"]?.stringValue ?? "") \(entry["path"]?.stringValue ?? "") \(status)"
    }
}
