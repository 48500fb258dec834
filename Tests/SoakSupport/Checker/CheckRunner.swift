import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// Runs one ``CheckProgram`` against Depot, a fresh ``CheckServer`` on loopback and a fresh store,
/// one step at a time (no background road: the schedule is the program's, so a seed replays), and
/// judges every answer against the ``CheckModel`` as it comes, then the server and the store after
/// a final flush and a full pull with no faults.
public struct CheckRunner: Sendable {
    /// How long one step (or the final settle) may take before it counts as a hang: a minute, so
    /// a machine loaded by other builds is not taken for a hang (a step takes well under a second
    /// alone), scaled by ``TestTimeScale/factor`` (ten times under ThreadSanitizer).
    public static let stepLimit = TestTimeScale.scaled(.seconds(60))
    /// The client's timeout: ``CheckFault/pastTimeout`` and ``CheckFault/slowAnswer`` exceed it.
    public static let timeout = Duration.milliseconds(800)

    /// What a run saw.
    public struct Outcome: Sendable {
        /// Every way it broke the model (empty: it held).
        public var violations: [CheckViolation] = []
        /// One line per step: what it did and how it ended.
        public var log: [String] = []
        /// Requests the server received.
        public var requests = 0
    }

    /// Runs `program`; its SQLite rounds on `store` instead of an SQLite file, when given.
    public static func run(_ program: CheckProgram, store: CheckStore? = nil) async -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Check-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var outcome = Outcome()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stub = try await StubServer.start()
            // The round's own name: an SQLite file, or a PostgreSQL schema (letters, digits, `_`).
            let name =
                store == nil
                ? directory.appendingPathComponent("check.sqlite").path
                : "check_" + UUID().uuidString.prefix(8).lowercased()
            // Another origin on another loopback port (rounds that redirect there).
            let mirror = program.shape.redirectsElsewhere ? try await StubServer.start() : nil
            let app = try await CheckApp(program: program, stub: stub, path: name, store: store, mirror: mirror)
            if program.shape.tinyCache {
                try await app.storage.setHTTPCacheLimit(HTTPCacheLimit(entries: 3, bytes: 4_000))
            }
            await app.runSteps(&outcome)
            if !outcome.violations.contains(where: { $0.kind == "HANG" }) { await app.settle(&outcome) }
            outcome.requests = stub.requests.count
            // `DEPOT_CHECK_REQUESTS=1`: the round's requests, in the order the server got them.
            if ProcessInfo.processInfo.environment["DEPOT_CHECK_REQUESTS"] != nil {
                for request in stub.requests {
                    let query = request.rawQuery.map { "?" + $0 } ?? ""
                    let body = String(decoding: request.body.prefix(120), as: UTF8.self)
                    outcome.log.append("request: \(request.method) \(request.rawPath)\(query) \(body)")
                }
            }
            if let mirror { outcome.log.append("the other origin received \(mirror.requests.count) requests") }
            try? await stub.shutdown()
            try? await mirror?.shutdown()
            if let store { await store.close(app.opened, name) }
        } catch {
            outcome.violations.append(CheckViolation(kind: "SETUP", step: nil, message: "\(error)"))
        }
        return outcome
    }

    /// Runs `body` with a limit; nil when the limit passed first (the body is left running).
    static func limited<Value: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let result = LockedValue<Value?>(nil)
        let returned = await SoakRunner.returns(within: limit) {
            result.withLock { $0 = nil }; let value = await body(); result.withLock { $0 = value }
        }
        return returned ? result.withLock { $0 } : nil
    }
}

/// A store the checker's SQLite rounds run on instead of an SQLite file (`Soak --check --store
/// postgres:URL`): replicas are two store objects on one database, a restart opens a new one.
public struct CheckStore: Sendable {
    /// Opens the round's store named `name` (every object opened with one name shares its data).
    public var open: @Sendable (_ name: String) async throws -> Storage
    /// Closes the objects opened for the round `name`, and removes its data.
    public var close: @Sendable (_ opened: [Storage], _ name: String) async -> Void

    /// A store opened by `open` and closed by `close`.
    public init(
        open: @escaping @Sendable (_ name: String) async throws -> Storage,
        close: @escaping @Sendable (_ opened: [Storage], _ name: String) async -> Void
    ) {
        self.open = open
        self.close = close
    }
}
