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

    /// Flushes (and, in the `batch` role, synchronizes) until the outbox is empty and the parent's
    /// `finished` file exists.
    private static func forward(_ storage: Storage, _ arguments: FleetArguments) async -> Status {
        // A short timeout: a request the server never answers is sent again soon, under its key.
        let session = NetworkingSession(
            url: URL(string: "http://127.0.0.1:\(arguments.port)")!,
            configuration: SessionConfiguration(timeout: .seconds(2)))
        let batching = arguments.role == "batch"
        let configuration = ForwarderConfiguration(
            baseDelay: .milliseconds(10), maximumDelay: .milliseconds(200), pollInterval: .milliseconds(100),
            requestTimeout: .seconds(2),
            leaseDuration: arguments.leaseMilliseconds.map { .milliseconds($0) } ?? .seconds(60),
            clock: OffsetClock(offset: TimeInterval(arguments.clockOffset)))
        let repositories = FleetItems.both(store: session, storage: storage)
        // The batch role forwards the server-id collection and pushes the other in batches.
        let forwarder = Forwarder(
            storage: storage,
            repositories: batching ? repositories.filter { $0.path == FleetItems.serverIDs } : repositories,
            configuration: configuration)
        let batch = FleetBatchItems(store: session, storage: storage)
        let deadline = ContinuousClock.now + deadline
        say("ready")
        do {
            if let gate = arguments.gate {
                while !FileManager.default.fileExists(atPath: gate) { try await Task.sleep(for: .milliseconds(1)) }
            }
            // Started, its configuration (lease, clock) is the one `synchronize()` claims with.
            if batching { forwarder.start() }
            say("started")
            var lastError: DepotError?
            while try await storage.outboxCount(OutboxQuery(selection: .all)) > 0
                || !FileManager.default.fileExists(atPath: arguments.finished)
            {
                var sent = 0
                if batching {
                    let pushed = try await batch.synchronize().value
                    sent += pushed.pushed + pushed.deleted
                    lastError = pushed.errors.last ?? lastError
                }
                let report = try await forwarder.flush().value
                sent += report.delivered
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
                if sent == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            if batching { await forwarder.stop() }
        } catch {
            complain("replica \(getpid()): \(error)")
            return .failed
        }
        say("done")
        return .done
    }
}
