import Depot
import DepotTesting

/// What a fleet run left, as ``FleetCheck`` reads it: the server's record of what it applied, the
/// requests (their bodies tell which write each applied write was), the objects it holds, and the
/// shared store's records and outbox.
public struct FleetOutcome: Sendable {
    /// The server's applied writes, in apply order.
    public var applied: [StubAppliedWrite]
    /// Every request the server got.
    public var requests: [RecordedRequest]
    /// The objects the server holds, by collection.
    public var server: [String: [JSONObject]]
    /// Every record of the fleet's collections in the shared store, tombstones included.
    public var local: [StoredRecord]
    /// The outbox before any forwarder ran.
    public var queued: [OutboxEntry]
    /// The outbox at the end.
    public var outboxLeft: [OutboxEntry]

    /// Makes an outcome.
    public init(
        applied: [StubAppliedWrite], requests: [RecordedRequest], server: [String: [JSONObject]],
        local: [StoredRecord], queued: [OutboxEntry], outboxLeft: [OutboxEntry]
    ) {
        self.applied = applied
        self.requests = requests
        self.server = server
        self.local = local
        self.queued = queued
        self.outboxLeft = outboxLeft
    }

    /// Reads `server` and `storage` once every forwarder has stopped; `queued` is the outbox as it
    /// was before the first one started.
    ///
    /// - Throws: what the store threw.
    public static func read(server: StubServer, storage: Storage, queued: [OutboxEntry]) async throws -> FleetOutcome {
        var local: [StoredRecord] = []
        for collection in [FleetItems.clientIDs, FleetItems.serverIDs] {
            local += try await storage.fetch(
                collection: collection, syncStates: Set(SyncState.allCases), after: nil, limit: Int.max)
        }
        return FleetOutcome(
            applied: server.appliedWrites, requests: server.requests,
            server: [
                FleetItems.clientIDs: server.objects(in: FleetItems.clientIDs),
                FleetItems.serverIDs: server.objects(in: FleetItems.serverIDs),
            ],
            local: local, queued: queued, outboxLeft: try await storage.outbox(OutboxQuery(selection: .all)))
    }
}
