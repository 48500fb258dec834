import Foundation

extension Synchronizer {
    /// Stores the matched replies in one transaction: each record's claimed outbox entries go (the
    /// server took them) and the reply is stored by the one rule
    /// (``StorageTransaction/storeServerAnswer(_:collection:sentID:sent:deleted:in:)``): `.synced` under the
    /// server's id, or, for a record changed since it was sent, its change kept and diffed from
    /// the reply, moved with its later entries to the server's id; `batch` is closed in the same
    /// transaction (its answer is known). Returns how many had changed, or nil, having written
    /// nothing, when the claim lost a lease meanwhile (the sender that holds the entries now
    /// stores their answer).
    func merge(_ merges: inout [Merge], claim: Claim, closing batch: OutboxBatch? = nil) async throws -> Int? {
        let (collection, replies, storage) = (self.collection, merges, self.storage)
        return try await storage.storingAnswers { tx -> Int? in
            guard try claim.isHeld(in: tx) else { return nil }
            if let batch { try tx.closeOutboxBatch(key: batch.key) }
            var changed = 0
            for merge in replies {
                guard let current = try tx.fetch(collection: collection, id: merge.sent.id) else {
                    changed += 1
                    continue
                }
                if current.object != merge.sent.object || current.syncState != merge.sent.syncState { changed += 1 }
                for sequence in claim.sequences[merge.sent.id] ?? [] { try tx.removeOutbox(sequence: sequence) }
                try tx.storeServerAnswer(
                    EncodedRecord.answer(
                        collection: collection, id: merge.id, object: merge.object, json: merge.snapshot, etag: nil),
                    collection: collection, sentID: merge.sent.id, sent: merge.sent.object, in: storage)
            }
            return changed
        }
    }
}
