import Foundation

extension Synchronizer {
    /// The outbox entries a push covers, per entity id: claimed in this process and marked
    /// attempted before the request goes, so a write made meanwhile is recorded after them, never
    /// folded into them.
    struct Claim: Sendable {
        var sequences: [String: [Int64]] = [:]
        var keys: [String] = []
        var coordinator: OutboxCoordinator

        /// One `Idempotency-Key` for the request, the same for the same entries after a restart.
        var idempotencyKey: String? {
            guard !keys.isEmpty else { return nil }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64-bit
            for byte in keys.joined(separator: ",").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            return keys.count == 1 ? keys[0] : "batch-\(keys.count)-" + String(hash, radix: 16)
        }

        func release() { coordinator.release(sequences.values.joined()) }
    }

    /// Records an outbox entry for every unsynced record that has none (written by a
    /// ``StorageRepository``, or before the outbox existed), so the outbox holds everything pending.
    func adoptUnsynced() async throws {
        var after: String?
        let collection = self.collection
        while true {
            let records = try await storage.fetch(
                collection: collection, syncStates: [.created, .updated, .deleted], after: after,
                limit: configuration.batchSize
            ).value
            guard let last = records.last else { return }
            after = last.id
            try await storage.transaction { tx in
                for record in records where try tx.outboxEntries(collection: collection, entityID: record.id).isEmpty {
                    let operation: OutboxOperation =
                        switch record.syncState {
                        case .created: .create
                        case .deleted: .delete
                        case .updated, .synced: .update
                        }
                    try tx.appendOutbox(
                        OutboxEntry(
                            sequence: 0, collection: collection, entityID: record.id, operation: operation,
                            payload: operation == .delete ? nil : .object(record.object)))
                }
            }.value
        }
    }

    /// Claims the pending entries of `ids` and counts an attempt on each; ids whose entity has a
    /// refused entry, or entries another sender holds, are returned in `held` and not sent.
    func claim(_ ids: [String]) async throws -> (claim: Claim, held: Set<String>) {
        let collection = self.collection
        let entries = try await storage.transaction { tx in
            try ids.flatMap { try tx.outboxEntries(collection: collection, entityID: $0) }
        }.value
        var claim = Claim(coordinator: OutboxCoordinator.of(storage))
        var held = Set(entries.filter(\.isRejected).map(\.entityID))
        let wanted = entries.filter { !held.contains($0.entityID) }
        let taken = claim.coordinator.claim(wanted.map(\.sequence))
        for entry in wanted where !taken.contains(entry.sequence) { held.insert(entry.entityID) }
        claim.coordinator.release(
            wanted.filter { held.contains($0.entityID) && taken.contains($0.sequence) }.map(\.sequence))
        let sequences = wanted.filter { !held.contains($0.entityID) }.map(\.sequence)
        let marked = try await storage.transaction { tx in try tx.markOutboxAttempted(sequences: sequences) }.value
        for entry in marked {
            claim.sequences[entry.entityID, default: []].append(entry.sequence)
            claim.keys.append(entry.idempotencyKey)
        }
        let markedSet = Set(marked.map(\.sequence))
        claim.coordinator.release(sequences.filter { !markedSet.contains($0) })
        return (claim, held)
    }
}
