import Depot
import DepotTesting
import Foundation

/// After a round: forward what is left in the outbox with no faults (as an app does after a
/// restart), then read what the server and the store hold.
public enum SoakRecovery {
    /// Flushes until the outbox holds nothing pending (or `deadline` passes), then returns the
    /// round's outcome.
    ///
    /// - Throws: what the store threw.
    public static func settle(
        items: SoakItems, server: StubServer, deadline: ContinuousClock.Instant
    ) async throws -> SoakModel.Outcome {
        let forwarder = Forwarder(
            for: items,
            configuration: ForwarderConfiguration(baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50)))
        let everything = OutboxQuery(selection: .all)
        while try await items.storage.outboxCount(everything) > 0, ContinuousClock.now < deadline {
            let report = try await forwarder.flush().value
            let refused = try await forwarder.rejected
            if !report.rejected.isEmpty || !refused.isEmpty { break }
            if report.delivered == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        await forwarder.stop()
        return SoakModel.Outcome(
            serverObjects: server.objects(in: items.path), applied: server.appliedWrites,
            localRecords: try await items.storage.fetch(
                collection: items.collection, syncStates: Set(SyncState.allCases), after: nil, limit: 1_000_000
            ),
            outbox: try await items.storage.outbox(everything))
    }
}
