import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// Runs one ``CheckProgram`` against Depot, a fresh ``CheckServer`` on loopback and a fresh store,
/// one step at a time (no background road: the schedule is the program's, so a seed replays), and
/// judges every answer against the ``CheckModel`` as it comes, then the server and the store after
/// a final flush and a full pull with no faults.
public struct CheckRunner: Sendable {
    /// How long one step (or the final settle) may take before it counts as a hang.
    public static let stepLimit = Duration.seconds(20)
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

    /// Runs `program`.
    public static func run(_ program: CheckProgram) async -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Check-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var outcome = Outcome()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stub = try await StubServer.start()
            let app = try CheckApp(
                program: program, stub: stub, path: directory.appendingPathComponent("check.sqlite").path)
            if program.shape.tinyCache {
                try await app.storage.setHTTPCacheLimit(HTTPCacheLimit(entries: 3, bytes: 4_000))
            }
            await app.runSteps(&outcome)
            if !outcome.violations.contains(where: { $0.kind == "HANG" }) { await app.settle(&outcome) }
            outcome.requests = stub.requests.count
            try? await stub.shutdown()
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
