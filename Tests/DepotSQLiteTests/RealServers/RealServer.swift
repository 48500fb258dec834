import Depot
import Foundation
import Testing

/// A test server on a real framework (`Tests/Servers`), started as a child process on a free
/// loopback port: Django REST Framework, FastAPI, Django REST Framework JSON:API, flask-smorest or
/// django-ninja, from a pinned venv that `scripts/python-servers` makes. Without Python or PyPI the suites say so and skip, except in
/// CI (`CI=true`), where a server that cannot start fails the test.
final class RealServer: Sendable {
    enum Kind: String, Sendable {
        case djangoREST = "drf"
        case fastAPI = "fastapi"
        case jsonAPI = "drf_jsonapi"
        case smorest = "smorest"
        case ninja = "ninja"
        case tastypie = "tastypie"
    }

    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's python, or why there is none; made once per test process.
    static let python: Result<String, SetupFailure> = {
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/python-servers")
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .failure(SetupFailure(message: "cannot run scripts/python-servers: \(error)"))
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let last = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard process.terminationStatus == 0, !last.isEmpty else {
            return .failure(SetupFailure(message: "scripts/python-servers failed (\(process.terminationStatus))"))
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

    struct SetupFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    let url: URL
    private let process: Process
    private let stdin: Pipe

    private init(url: URL, process: Process, stdin: Pipe) {
        self.url = url
        self.process = process
        self.stdin = stdin
    }

    /// Starts a server of `kind` and waits (at most 60 s) for the port it bound.
    static func start(_ kind: Kind) throws -> RealServer {
        let python = try Self.python.get()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Tests/Servers/\(kind.rawValue)/serve.py").path]
        let (stdin, stdout) = (Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The first line is "PORT n"; the server writes nothing else to stdout.
        var line = Data()
        let reading = stdout.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)), (1...65535).contains(port) else {
            process.terminate()
            throw SetupFailure(message: "the \(kind) server did not report its port (printed \(text.debugDescription))")
        }
        return RealServer(url: URL(string: "http://127.0.0.1:\(port)")!, process: process, stdin: stdin)
    }

    /// Stops the server: its stdin closes (it exits on EOF), then SIGTERM.
    func stop() {
        try? stdin.fileHandleForWriting.close()  // already closed is fine: the server exits either way
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// The server of each kind this test process started: one Django or FastAPI start (and its
    /// migrations) per process instead of per test. It exits when the process ends (its stdin
    /// closes).
    private static let shared = LockedValue<[Kind: RealServer]>([:])

    /// Runs `body` with the server of `kind` reset to empty (no notes, ids from 1, no request log):
    /// what a fresh server holds. The suites using it are `.serialized`, so no two tests share it
    /// at once.
    static func with(_ kind: Kind, _ body: (RealServer) async throws -> Void) async throws {
        let server = try shared.withLock { servers in
            if let server = servers[kind], server.process.isRunning { return server }
            let server = try start(kind)
            servers[kind] = server
            return server
        }
        try await server.control(.post, kind == .djangoREST || kind == .tastypie ? "__reset/" : "__reset")
        try await body(server)
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
