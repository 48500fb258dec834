import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// `Soak --volume N`: N queued creates forwarded by one forwarder (4 sends at once, pages of 256)
/// on SQLite and in memory, judged exactly: every write delivered, each applied once under its own
/// key, nothing left unsynced. The README suite runs the same check at 150 writes; this is the
/// figure at volume.
enum SoakVolume {
    /// Runs the check on both stores; returns the exit status (0 when both held).
    static func run(count: Int) async -> Int32 {
        var status: Int32 = 0
        for kind in ["sqlite", "memory"] {
            do {
                let violations = try await check(kind: kind, count: count)
                for violation in violations { complain("  VIOLATION " + violation) }
                if !violations.isEmpty { status = 1 }
            } catch {
                complain("volume \(kind): \(error)")
                status = 1
            }
        }
        return status
    }

    /// One store: queue, forward, judge; prints the figures and returns what broke.
    static func check(kind: String, count: Int) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "depot-volume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await withStubServer { server in
            server.resource("items")
            let storage: Storage =
                kind == "sqlite"
                ? try SQLiteStorage(path: directory.appendingPathComponent("volume.sqlite").path)
                : InMemoryStorage()
            let items = SoakItems(
                store: NetworkingSession(url: server.url), storage: storage,
                strategy: Strategy(Rule(target: .local, synchronize: false)))
            let queued = ContinuousClock.now
            try await storage.transaction { tx in
                for index in 1...count {
                    let id = "i\(index)"
                    let object: JSONObject = ["id": .string(id), "value": .string("v\(index)")]
                    try tx.upsert(StoredRecord(collection: "items", id: id, object: object, syncState: .created))
                    try tx.recordOutbox(collection: "items", entityID: id, operation: .create, payload: .object(object))
                }
            }
            let keys = Set(try await storage.outbox(OutboxQuery(selection: .all)).map(\.idempotencyKey))
            let forwarding = ContinuousClock.now
            let forwarder = Forwarder(
                for: items, configuration: ForwarderConfiguration(maximumConcurrency: 4, pageSize: 256))
            let report = try await forwarder.flush().value
            let done = ContinuousClock.now
            var violations: [String] = []
            let applied = server.appliedWrites
            if keys.count != count { violations.append("\(kind): \(keys.count) keys for \(count) writes") }
            if report.delivered != count || report.retrying != 0 || !report.rejected.isEmpty {
                violations.append(
                    "\(kind): LOST delivered \(report.delivered), retrying \(report.retrying), "
                        + "rejected \(report.rejected.count) of \(count)")
            }
            if applied.count != count { violations.append("\(kind): APPLIED TWICE or LOST: \(applied.count) applied") }
            if Set(applied.compactMap(\.idempotencyKey)) != keys {
                violations.append("\(kind): the applied keys are not the queued keys")
            }
            if server.objects(in: "items").count != count {
                violations.append("\(kind): the server holds \(server.objects(in: "items").count) items")
            }
            let unsynced = try await storage.fetch(
                collection: "items", syncStates: [.created, .updated, .deleted], after: nil, limit: 10
            )
            if !unsynced.isEmpty { violations.append("\(kind): \(unsynced.count)+ records still unsynced") }
            let seconds = (done - forwarding).seconds
            say(
                "volume \(kind): \(count) writes queued in \(format((forwarding - queued).seconds)) s, "
                    + "forwarded in \(format(seconds)) s (\(Int(Double(count) / max(seconds, 0.001))) writes/s), "
                    + "\(applied.count) applied, \(violations.isEmpty ? "ok" : "FAILED")")
            return violations
        }
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
