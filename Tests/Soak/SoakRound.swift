import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// One round: a fresh stub server with seeded faults queued and a fresh SQLite file; the workload
/// runs in a child process, SIGKILLed at a seeded moment in three rounds of four (the fourth must
/// finish: a hang is a failure); then the parent opens the file, forwards what is left with no
/// faults, and judges the journal against what the server and the store hold. The round's
/// ``SoakModes`` shape the server (assigned ids, ignored keys, slow answers) and the program.
struct SoakRound {
    /// The round's seed: workload, faults, strategy and kill moment.
    let seed: UInt64
    /// Operations the child runs.
    let operations: Int
    /// This executable, started again with `--child`.
    let executable: String
    /// The round's shapes.
    let modes: SoakModes

    /// What the round did and found.
    struct Report {
        var operations = 0
        var failures = 0
        var killed = false
        var requests = 0
        var faults: [String: Int] = [:]
        var violations: [String] = []
        var strategy = ""
        var modes = SoakModes()
        var restarts = 0
        var extraApplies = 0
        var journal: [String] = []
        /// The server's requests before the settle, one line each (method, path, value sent, key,
        /// fault met), and the writes it applied: printed when the round fails.
        var trace: [String] = []

        func line(_ number: Int) -> String {
            "round \(number) [\(modes)]: \(strategy), \(operations) operations (\(failures) failed), "
                + "\(requests) requests, \(faults.values.reduce(0, +)) faults, "
                + (modes.manyRoads ? "\(restarts) forwarder restarts, " : "")
                + (modes.ignoresKeys ? "\(extraApplies) applied again, " : "")
                + (killed ? "killed" : "finished")
                + (violations.isEmpty ? ": ok" : ": \(violations.count) violations")
        }
    }

    func run() async throws -> Report {
        var report = Report()
        var random = SeededGenerator(seed: ~seed)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Soak-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("soak.sqlite").path
        let server = try await StubServer.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        server.resource("items")
        if modes.assignsIDs {
            server.assignIDs(startingAt: Int.random(in: 1_000...9_000, using: &random), for: "items")
        }
        server.setIgnoresIdempotencyKeys(modes.ignoresKeys, for: "items")
        let plan = SoakFaults.queue(
            on: server, resource: "items", seed: seed, requests: operations * 6, rate: 20,
            timeoutDelay: SoakSetup.pastTimeout(modes), slowDelays: modes.shortLease ? SoakSetup.slowDelays : nil)
        report.modes = modes
        report.strategy =
            modes.manyRoads
            ? "both strategies" : modes.shortLease ? "queued" : SoakItems.strategies[Int(seed % 2)].name
        let kill = Int.random(in: 0..<4, using: &random) != 0
        let latest = modes == SoakModes() ? 1_500 : 4_000
        let killAfter = Duration.milliseconds(Int.random(in: 20...latest, using: &random))

        let child = try ChildProcess(
            executable: executable,
            arguments: [
                "--child", "--port", String(server.port), "--db", database, "--seed", String(seed), "--ops",
                String(operations), "--modes", modes.description,
            ])
        let ending: ChildProcess.Ending
        if kill {
            _ = try await child.waitFor(line: "DONE", timeout: killAfter)
            child.kill()
            ending = try await child.waitForEnd(timeout: .seconds(10))
            report.killed = ending == .signalled(SIGKILL)
        } else {
            ending = try await child.waitForEnd(timeout: .seconds(120))
            if ending == .running {
                child.kill()
                report.violations.append("HANG the child did not finish \(operations) operations in 120 s")
            }
        }
        switch ending {
        case .exited(0), .signalled(SIGKILL): break
        case let other: report.violations.append("the child crashed or failed: \(other)")
        }

        var model = SoakModel(modes: modes)
        report.journal = child.lines
        for line in report.journal { model.read(line) }
        report.operations = model.operations
        report.failures = model.failures
        report.restarts = model.restarts
        server.clearFaults()
        let requests = server.requests
        report.faults = plan.met(requests: requests.count)
        server.setPaging(maximumSize: nil, for: "items")
        let storage = try SQLiteStorage(path: database)
        let items = SoakItems(store: SoakSetup.session(url: server.url), storage: storage, strategy: .remoteFirst)
        var outcome = try await SoakRecovery.settle(
            items: items, server: server, deadline: ContinuousClock.now + .seconds(30))
        outcome.lostAnswers = plan.lostAnswers(requests)
        outcome.killed = report.killed
        report.extraApplies = model.extraApplies(in: outcome)
        for (index, request) in server.requests.enumerated() {
            let value = request.json?.objectValue?["value"]?.stringValue ?? "-"
            let key = request.header("Idempotency-Key").map { String($0.prefix(8)) } ?? "-"
            let fault = index < requests.count && index < plan.slots.count ? plan.slots[index] ?? "" : ""
            let road = index < requests.count ? request.header("X-Soak-Road") ?? "-" : "settle"
            report.trace.append(
                "request \(index) \(road) \(request.method) \(request.path) \(value) key \(key) \(fault)")
        }
        report.trace += outcome.applied.map {
            "applied #\($0.sequence) \($0.method) \($0.id ?? "-") key \($0.idempotencyKey.map { String($0.prefix(8)) } ?? "-")"
        }
        report.requests = server.requests.count
        report.violations += model.violations(of: outcome)
        try storage.close()
        try await server.shutdown()
        return report
    }
}
