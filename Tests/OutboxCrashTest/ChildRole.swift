import Depot
import DepotSQLite
import Foundation

/// The child's side: forwards the SQLite file's outbox to the stub server until it is empty, as an
/// app would after a restart. Prints `started` just before the first send and `done` at the end
/// (the parent kills it in between); problems go to standard error.
enum ChildRole {
    /// Exit statuses the parent reads.
    enum Status: Int32 {
        /// The outbox is empty.
        case done = 0
        /// The store or the forwarder failed.
        case failed = 4
        /// The server refused an entry for good.
        case rejected = 5
        /// The outbox did not empty in time.
        case timedOut = 6
    }

    /// Forwards until the outbox is empty; returns the exit status.
    static func run(_ arguments: Arguments) async -> Int32 {
        do {
            return try await forward(arguments).rawValue
        } catch {
            complain("child: \(error)")
            return Status.failed.rawValue
        }
    }

    /// Opens the file, flushes until nothing is left, and closes it.
    private static func forward(_ arguments: Arguments) async throws -> Status {
        let storage = try SQLiteStorage(path: arguments.database)
        defer { try? storage.close() }
        // A short timeout: on Linux, FoundationNetworking does not report a kept-alive connection
        // the server closes without answering (StubFault.applyThenDropConnection); the request
        // waits for its timeout, 60 s by default (a plain URLSession does the same).
        let session = NetworkingSession(
            url: URL(string: "http://127.0.0.1:\(arguments.port)")!,
            configuration: SessionConfiguration(timeout: .seconds(1)))
        let notes = Notes(store: session, storage: storage, strategy: .remoteFirst)
        // The default lease (60 s): the restarted child takes the killed one's entries at once,
        // because the store knows their owner died (its lock on the file went with it), not
        // because a lease lapsed; the restart's time, printed per round, shows it.
        let forwarder = Forwarder(
            for: notes, configuration: ForwarderConfiguration(maximumConcurrency: arguments.concurrency))
        let everything = OutboxQuery(selection: .all)
        let deadline = ContinuousClock.now + .seconds(50)
        say("started")
        while try await storage.outboxCount(everything) > 0 {
            let report = try await forwarder.flush().value
            if let refused = try await forwarder.rejected.first {
                complain("child: the server refused entry \(refused.sequence): \(refused.rejection?.message ?? "")")
                return .rejected
            }
            guard ContinuousClock.now < deadline else {
                complain(
                    "child: the outbox is not empty after 50 s; last error: \(report.errors.last.map { "\($0)" } ?? "none")"
                )
                return .timedOut
            }
            // Something failed in a retryable way (a dropped connection): the next flush sends it
            // again at once, under the same Idempotency-Key.
            if report.delivered == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        say("done")
        return .done
    }
}

/// Writes `line` to standard output at once (print to a pipe is block-buffered, and a killed
/// child never flushes).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes `line` to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
