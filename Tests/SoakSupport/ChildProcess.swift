import Depot
import Foundation

/// A child process (a test executable started again with `--child …`), watched through its
/// standard output; its standard error goes to the parent's. The outbox crash test and the soak
/// share it.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum Ending: Sendable, Equatable {
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

    /// Starts `executable` with `arguments`.
    ///
    /// - Throws: what `Process.run()` threw.
    public init(executable: String, arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
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
    public var lines: [String] { output.withLock { $0.text.split(separator: "\n").map(String.init) } }

    /// Whether everything the child printed has been read (its standard output reached its end).
    public var readAll: Bool { output.withLock(\.closed) }

    /// Whether the child printed `line`.
    public func printed(_ line: String) -> Bool { lines.contains(line) }

    /// How the child ended, or ``Ending/running``.
    public var ending: Ending {
        if process.isRunning { return .running }
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .signalled(process.terminationStatus)
        @unknown default: return .exited(process.terminationStatus)
        }
    }

    /// Waits until the child prints `line` (true) or ends or `timeout` passes (false).
    public func waitFor(line: String, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !printed(line) {
            if ending != .running || ContinuousClock.now >= deadline { return printed(line) }
            try await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Waits until the child ends (and all it printed is read) or `timeout` passes; returns how it
    /// ended.
    public func waitForEnd(timeout: Duration) async throws -> Ending {
        let deadline = ContinuousClock.now + timeout
        while ending == .running || !output.withLock(\.closed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        return ending
    }

    /// Sends SIGKILL: the child stops wherever it is, with no chance to clean up.
    public func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Sends SIGTERM: the child may finish what it is doing and exit.
    public func terminate() {
        _ = Foundation.kill(process.processIdentifier, SIGTERM)
    }
}
