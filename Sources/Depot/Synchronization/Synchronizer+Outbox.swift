import Foundation

extension Synchronizer {
    /// The outbox entries a push covers, per entity id: leased in the store (see
    /// ``OutboxLease``) and marked attempted before the request goes, so a write made meanwhile is
    /// recorded after them, never folded into them, and no other sender sends them meanwhile.
    struct Claim: Sendable {
        var sequences: [String: [Int64]] = [:]
        var keys: [String] = []
        var lease: OutboxClaim
        /// The key of the batch the entries go in (see ``OutboxBatch``); nil for one entity's
        /// request.
        var batchKey: String?

        init(lease: OutboxClaim, entries: [OutboxEntry] = [], batchKey: String? = nil) {
            self.lease = lease
            self.batchKey = batchKey
            for entry in entries {
                sequences[entry.entityID, default: []].append(entry.sequence)
                keys.append(entry.idempotencyKey)
            }
        }

        /// One `Idempotency-Key` for the request: the batch's key; for one entity's request its
        /// entry's own key, or for several entries a hash of their keys in sorted order.
        var idempotencyKey: String? {
            if let batchKey { return batchKey }
            guard keys.count > 1 else { return keys.first }
            return OutboxBatch.key(for: keys)
        }

        /// Gives the leases back; not cancelled with the caller (a lease left behind lapses).
        func release() async throws { try await lease.releaseAll() }

        /// Whether every entry of the claim is still in the store under its lease: no other sender
        /// took one since (after its lease lapsed). Checked in each transaction that writes back
        /// what was sent: a sender that lost its lease writes nothing, and the sender that holds
        /// the entries now stores their answer.
        func isHeld(in tx: any StorageTransaction) throws -> Bool {
            let all = Set(sequences.values.joined())
            return try tx.heldOutboxLeases(sequences: Array(all), owner: lease.owner).count == all.count
        }
    }

    /// Records an outbox entry for every unsynced record that has none (written by a
    /// ``StorageRepository``, or before the outbox existed), so the outbox holds everything pending.
    ///
    /// The page read only names candidates: each is decided on what the transaction reads, so a
    /// write the forwarder delivered meanwhile (its record now synced, or moved to the server's
    /// id, and its entry gone) is not recorded a second time under a fresh `Idempotency-Key`.
    func adoptUnsynced() async throws {
        var after: String?
        let collection = self.collection
        while true {
            let candidates = try await storage.fetch(
                collection: collection, syncStates: [.created, .updated, .deleted], after: after,
                limit: configuration.batchSize
            )
            guard let last = candidates.last else { return }
            after = last.id
            let ids = candidates.map(\.id)
            try await storage.transaction { tx in
                for id in ids {
                    guard let record = try tx.fetch(collection: collection, id: id),
                        try tx.outboxEntries(collection: collection, entityID: id).isEmpty
                    else { continue }
                    try tx.adoptUnsent(record)
                }
            }
        }
    }

}
