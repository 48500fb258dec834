import Depot
import Foundation

/// Helpers for ``StorageConformanceTests``: nothing here knows which store it runs on.
enum Conformance {
    /// A fixed clock reading, in whole seconds so every store gives the same dates back.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Lease owners of senders on another host: never taken for a process that has ended, so
    /// their leases hold until they expire.
    static let peerA = "conformance-peer-a.invalid:1:aaaaaaaa#1"
    static let peerB = "conformance-peer-b.invalid:1:bbbbbbbb#1"

    /// A lease for `owner` that ends `seconds` after ``now``.
    static func lease(_ owner: String, for seconds: TimeInterval) -> OutboxLease {
        OutboxLease(owner: owner, expiry: now.addingTimeInterval(seconds))
    }

    /// An outbox entry to append (its sequence is given by the store).
    static func entry(
        _ entityID: String, _ operation: OutboxOperation = .update, payload: JSON? = ["text": "x"],
        collection: String = "messages"
    ) -> OutboxEntry {
        OutboxEntry(
            sequence: 0, collection: collection, entityID: entityID, operation: operation,
            payload: operation == .delete ? nil : payload)
    }

    /// Appends `entries` in one transaction and returns their sequences, in order.
    static func append(_ entries: [OutboxEntry], to storage: any Storage) async throws -> [Int64] {
        try await storage.transaction { tx in try entries.map { try tx.appendOutbox($0) } }
    }

    /// A refusal to mark entries with.
    static let rejection = OutboxRejection(status: 422, body: Data(#"{"error":"bad"}"#.utf8), message: "422 bad")
}

/// The error a transaction body throws to roll back.
struct ConformanceFailure: Error {}
