import Depot
import Foundation
import SoakSupport

/// A replica: forwards the shared store's outbox to the stub server, beside the other replicas,
/// until the outbox is empty and the parent has queued its last write. Prints `ready` once its
/// store is open, `started` just before its first send and `done` at the end; problems go to
/// standard error.
enum FleetChild {
    /// Exit statuses the parent reads.
    enum Status: Int32 {
        /// The outbox is empty and the parent is done writing.
        case done = 0
        /// The store or the forwarder failed.
        case failed = 4
        /// The server refused an entry for good.
        case rejected = 5
        /// The outbox did not empty in time.
        case timedOut = 6
    }

    /// How long a replica forwards before it gives up.
    static let deadline = Duration.seconds(300)

    /// Forwards until done; returns the exit status.
    static func run(_ arguments: FleetArguments) async -> Int32 {
        guard let store = arguments.store else { return Status.failed.rawValue }
        do {
            let opened = try await store.open()
            let status = await forward(opened.storage, arguments)
            await opened.close()
            return status.rawValue
        } catch {
            complain("replica \(getpid()): \(error)")
            return Status.failed.rawValue
        }
    }

    /// Flushes until the outbox is empty and the parent's `finished` file exists.
    private static func forward(_ storage: Storage, _ arguments: FleetArguments) async -> Status {
        // A short timeout: a request the server never answers is sent again soon, under its key.
        let session = NetworkingSession(
            url: URL(string: "http://127.0.0.1:\(arguments.port)")!,
            configuration: SessionConfiguration(timeout: .seconds(2)))
        let forwarder = Forwarder(
            storage: storage, repositories: FleetItems.both(store: session, storage: storage),
            configuration: ForwarderConfiguration(
                baseDelay: .milliseconds(10), maximumDelay: .milliseconds(200), requestTimeout: .seconds(2)))
        let deadline = ContinuousClock.now + deadline
        say("ready")
        do {
            if let gate = arguments.gate {
                while !FileManager.default.fileExists(atPath: gate) { try await Task.sleep(for: .milliseconds(1)) }
            }
            say("started")
            var lastError: DepotError?
            while try await storage.outboxCount(OutboxQuery(selection: .all)) > 0
                || !FileManager.default.fileExists(atPath: arguments.finished)
            {
                let report = try await forwarder.flush().value
                lastError = report.errors.last ?? lastError
                if let refused = try await forwarder.rejected.first {
                    complain(
                        "replica \(getpid()): the server refused \(refused.operation) \(refused.entityID):"
                            + " \(refused.rejection?.message ?? "")")
                    return .rejected
                }
                guard ContinuousClock.now < deadline else {
                    complain(
                        "replica \(getpid()): the outbox is not empty in time; last error: \(lastError.map { "\($0)" } ?? "none")"
                    )
                    return .timedOut
                }
                // Nothing sent: what is left is leased by other replicas, or not queued yet.
                if report.delivered == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
        } catch {
            complain("replica \(getpid()): \(error)")
            return .failed
        }
        say("done")
        return .done
    }
}
