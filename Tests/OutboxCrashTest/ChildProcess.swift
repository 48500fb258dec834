import Depot
import Foundation

/// One forwarding child (this executable with `--child`), watched through its standard output;
/// its standard error goes to the parent's.
final class ChildProcess: Sendable {
    /// How the child ended.
    enum Ending: Sendable, Equatable {
        /// Still running.
        case running
        /// Exited with this status.
        case exited(Int32)
        /// Ended by this signal.
        case signalled(Int32)
    }

    private let process: Process
    /// What the child printed, and whether its standard output reached its end.
    private let output = LockedValue((text: "", closed: false))

    /// Starts `executable --child --port <port> --db <database> --concurrency <concurrency>`.
    ///
    /// - Throws: what `Process.run()` threw.
    init(executable: String, port: Int, database: String, concurrency: Int) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--child", "--port", String(port), "--db", database, "--concurrency", String(concurrency)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        let (reading, output) = (pipe.fileHandleForReading, self.output)
        Thread.detachNewThread {
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                output.withLock { $0.text += String(decoding: data, as: UTF8.self) }
            }
            output.withLock { $0.closed = true }
        }
    }

    /// The lines the child printed so far.
    var lines: [String] { output.withLock { $0.text.split(separator: "\n").map(String.init) } }

    /// Whether the child printed `line`.
    func printed(_ line: String) -> Bool { lines.contains(line) }

    /// How the child ended, or ``Ending/running``.
    var ending: Ending {
        if process.isRunning { return .running }
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .signalled(process.terminationStatus)
        @unknown default: return .exited(process.terminationStatus)
        }
    }

    /// Waits until the child prints `line` (true) or ends or `timeout` passes (false).
    func waitFor(line: String, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !printed(line) {
            if ending != .running || ContinuousClock.now >= deadline { return printed(line) }
            try await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Waits until the child ends (and all it printed is read) or `timeout` passes; returns how it
    /// ended.
    func waitForEnd(timeout: Duration) async throws -> Ending {
        let deadline = ContinuousClock.now + timeout
        while ending == .running || !output.withLock(\.closed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        return ending
    }

    /// Sends SIGKILL: the child stops wherever it is, with no chance to clean up.
    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }
}
