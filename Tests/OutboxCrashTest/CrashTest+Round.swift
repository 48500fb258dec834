import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

extension CrashTest {
    /// One round: writes, a child killed mid-forward, more writes, a restarted child, the check.
    ///
    /// - Throws: ``HarnessError`` when a child does not start, fails or hangs; what the store threw.
    mutating func round(_ number: Int) async throws -> RoundReport {
        var report = RoundReport(number: number)
        server.clearAppliedWrites()
        server.clearRequests()
        server.clearFaults()
        let session = self.session
        let everything = OutboxQuery(selection: .all)
        (report.writes, report.snapshots.beforeForwarding) = try await Self.withStorage(database) { storage in
            let writes = try await workload.write(arguments.writes, to: .offline(storage: storage, store: session))
            return (writes, try await storage.outbox(everything))
        }
        report.entries = report.snapshots.beforeForwarding.count
        report.faults = FaultPlan.random(requests: report.entries, using: &random)
        report.faults.inject(into: server, requests: report.entries)
        report.concurrency = ([1, 1, 4].randomElement(using: &random)!, [1, 1, 4].randomElement(using: &random)!)

        try await killMidForward(&report)

        (report.snapshots.afterKill, report.laterWrites, report.snapshots.beforeRestart) =
            try await Self.withStorage(database) { storage in
                let afterKill = try await storage.outbox(everything)
                let later = try await workload.write(
                    max(arguments.writes / 4, 1), to: .offline(storage: storage, store: session))
                return (afterKill, later, try await storage.outbox(everything))
            }

        let restarted = ContinuousClock.now
        let child = try ChildProcess(
            executable: executable, arguments: childArguments(concurrency: report.concurrency.restart))
        let ending = try await child.waitForEnd(timeout: .seconds(60))
        report.restart = ContinuousClock.now - restarted
        if ending == .running { child.kill() }
        guard ending == .exited(ChildRole.Status.done.rawValue), child.printed("done") else {
            throw HarnessError(description: "the restarted child did not empty the outbox: \(ending)")
        }
        server.clearFaults()

        let (local, outboxLeft) = try await Self.withStorage(database) { storage in
            let local = try await storage.fetch(
                collection: "notes", syncStates: Set(SyncState.allCases), after: nil, limit: Int.max
            )
            return (local, try await storage.outbox(everything))
        }
        report.replayed = server.replayedWrites
        report.check = RoundCheck(
            snapshots: report.snapshots, applied: server.appliedWrites, server: server.objects(in: "notes"),
            local: local, outboxLeft: outboxLeft, expected: workload.expected)
        return report
    }

    /// Starts a child and kills it at a random moment of its forwarding: once the server has had a
    /// random number of its requests (0 to the entry count), plus up to 4 ms.
    private mutating func killMidForward(_ report: inout RoundReport) async throws {
        let target = Int.random(in: 0..<max(report.entries, 1), using: &random)
        let jitter = Duration.microseconds(Int.random(in: 0..<4000, using: &random))
        let child = try ChildProcess(
            executable: executable, arguments: childArguments(concurrency: report.concurrency.first))
        guard try await child.waitFor(line: "started", timeout: .seconds(30)) else {
            child.kill()
            throw HarnessError(description: "the child did not start: \(child.ending)")
        }
        let started = ContinuousClock.now
        while server.requests.count < target, child.ending == .running, ContinuousClock.now < started + .seconds(30) {
            try await Task.sleep(for: .microseconds(200))
        }
        try await Task.sleep(for: jitter)
        let finishedFirst = child.printed("done")
        if child.ending == .running {
            child.kill()
            report.killedAfter = ContinuousClock.now - started
        }
        switch try await child.waitForEnd(timeout: .seconds(10)) {
        case .signalled(SIGKILL):
            report.killedMidForward = !finishedFirst && !child.printed("done")
        case .exited(ChildRole.Status.done.rawValue):
            report.killedAfter = nil
        case let ending:
            child.kill()
            throw HarnessError(description: "the first child failed: \(ending)")
        }
    }

    /// `--child --port <port> --db <database> --concurrency <concurrency>`.
    private func childArguments(concurrency: Int) -> [String] {
        ["--child", "--port", String(server.port), "--db", database, "--concurrency", String(concurrency)]
    }
}
