import Foundation
import SoakSupport

/// The replica processes of a run: started, killed and restarted by the parent.
struct FleetReplicas {
    /// This executable.
    let executable: String
    /// Every replica's command line.
    let arguments: [String]
    /// Each slot's own arguments after ``arguments`` (its role), kept across restarts.
    let slotArguments: (Int) -> [String]
    /// The running (or ended) replicas, one per slot.
    private(set) var processes: [ChildProcess] = []
    /// How many replicas were started in all, restarts included.
    private(set) var started = 0

    /// Starts `count` replicas of `executable` with `arguments`, and `slotArguments(slot)` after
    /// them for each slot.
    ///
    /// - Throws: what starting a process threw.
    init(
        count: Int, executable: String, arguments: [String], slotArguments: @escaping (Int) -> [String] = { _ in [] }
    ) throws {
        self.executable = executable
        self.arguments = arguments
        self.slotArguments = slotArguments
        for slot in 0..<count { processes.append(try start(slot)) }
    }

    /// Starts the replica of `slot`.
    private mutating func start(_ slot: Int) throws -> ChildProcess {
        started += 1
        return try ChildProcess(executable: executable, arguments: arguments + slotArguments(slot))
    }

    /// Waits until every replica has printed `line`.
    ///
    /// - Throws: ``HarnessError`` when one ends or `timeout` passes first.
    func waitFor(_ line: String, timeout: Duration) async throws {
        for process in processes where !(try await process.waitFor(line: line, timeout: timeout)) {
            throw HarnessError(description: "a replica did not print \(line): \(process.ending)")
        }
    }

    /// SIGKILLs the replica in `slot` (if it still runs) and starts another in its place; returns
    /// whether the killed one was forwarding (not yet done).
    ///
    /// - Throws: ``HarnessError`` when the killed process does not end; what starting one threw.
    mutating func killAndRestart(_ slot: Int) async throws -> Bool {
        let victim = processes[slot]
        guard victim.ending == .running else { return false }
        let wasForwarding = victim.printed("started") && !victim.printed("done")
        victim.kill()
        guard try await victim.waitForEnd(timeout: .seconds(10)) != .running else {
            throw HarnessError(description: "a killed replica did not end")
        }
        processes[slot] = try start(slot)
        return wasForwarding
    }

    /// Whether every replica has ended and all it printed is read.
    var allEnded: Bool { processes.allSatisfy { $0.ending != .running && $0.readAll } }

    /// How the replicas that ended otherwise than `done` ended (a replica whose last lines are
    /// still to read is not judged yet: it may have printed `done` just before it exited).
    var failures: [String] {
        processes.compactMap { process in
            switch process.ending {
            case .running: nil
            case .exited(FleetChild.Status.done.rawValue) where !process.readAll: nil
            case .exited(FleetChild.Status.done.rawValue) where process.printed("done"): nil
            case let ending: "a replica ended \(ending)"
            }
        }
    }

    /// Kills every replica still running (on the way out of a failed run).
    func killAll() {
        for process in processes where process.ending == .running { process.kill() }
    }
}

/// A failure of the harness itself (not a finding about the outbox).
struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String
}
