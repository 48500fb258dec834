import Foundation

extension Synchronizer {
    /// The outbox entries a push covers, per entity id: leased in the store (see
    /// ``OutboxLease``) and marked attempted before the request goes, so a write made meanwhile is
    /// recorded after them, never folded into them, and no other sender sends them meanwhile.
    struct Claim: Sendable {
        var sequences: [String: [Int64]] = [:]
        var keys: [String] = []
        var lease: OutboxClaim

        /// One `Idempotency-Key` for the request: the entry's own key for one entry, else a hash
        /// of the entries' keys in sorted order, so the same entries carry the same key whatever
        /// order a later run reads them in.
        var idempotencyKey: String? {
            guard !keys.isEmpty else { return nil }
            guard keys.count > 1 else { return keys[0] }
            let hash = FNV1a.hash(keys.sorted().joined(separator: ",").utf8)
            return "batch-\(keys.count)-" + String(hash, radix: 16)
        }

        /// Gives the leases back; not cancelled with the caller (a lease left behind lapses).
        func release() async throws { try await lease.releaseAll() }
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

    /// Claims the pending entries of `ids` and counts an attempt on each; ids whose entity has a
    /// refused entry, or entries another sender holds, are returned in `held` and not sent.
    func claim(_ ids: [String]) async throws -> (claim: Claim, held: Set<String>) {
        let collection = self.collection
        let entries = try await storage.transaction { tx in
            try ids.flatMap { try tx.outboxEntries(collection: collection, entityID: $0) }
        }
        var held = Set(entries.filter(\.isRejected).map(\.entityID))
        let wanted = entries.filter { !held.contains($0.entityID) }
        let (lease, taken) = try await OutboxClaim.take(wanted.map(\.sequence), in: storage)
        var claim = Claim(lease: lease)
        let takenSequences = Set(taken.map(\.sequence))
        for entry in wanted where !takenSequences.contains(entry.sequence) { held.insert(entry.entityID) }
        let given = taken.filter { held.contains($0.entityID) }
        if !given.isEmpty {
            // Entities another sender holds part of: give back what was taken of them.
            let sequences = given.map(\.sequence)
            try await storage.takeBackAttempts(sequences)
            try await lease.release(sequences)
        }
        for entry in taken where !held.contains(entry.entityID) {
            claim.sequences[entry.entityID, default: []].append(entry.sequence)
            claim.keys.append(entry.idempotencyKey)
        }
        return (claim, held)
    }
}
