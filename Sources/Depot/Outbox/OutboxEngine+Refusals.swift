import Foundation

extension OutboxEngine {
    /// Removes `entry`, a write that gave way to the server's version (``ConflictPolicy/serverWins``),
    /// when that version is one the app cannot read (`error`): the entry is settled all the same,
    /// and the server's copy is kept in the quarantine, as a pull keeps an unreadable row (a
    /// readable version releases it), in the transaction that removes the entry.
    ///
    /// The record keeps the last version the app could read (its snapshot): with later writes of
    /// the entity waiting, they stay on top and go next against the server's version (its `ETag`);
    /// with none, the record goes back to that snapshot, synced, as ``Forwarder/discard(_:)``
    /// leaves it (removed when the server never had a version the app read). Like
    /// ``storeAnswer(_:_:_:)``, writes nothing when the entry is gone, and returns false when
    /// another sender holds it now.
    func storeUnreadableAnswer(_ entry: OutboxEntry, _ answer: OutboxChannel.Answer, _ error: DepotError)
        async throws -> Bool
    {
        let storage = self.storage
        return try await storage.transaction { tx in
            guard let stored = try tx.outboxEntry(sequence: entry.sequence) else { return true }
            guard Self.holds(stored, as: entry) else { return false }
            try tx.removeOutbox(sequence: stored.sequence)
            try tx.writeRecord(
                .unreadableAnswer(
                    collection: stored.collection, id: stored.entityID, raw: .object(answer.json), error: error,
                    etag: answer.etag))
            return true
        }
    }
}

extension OutboxEngine {
    /// Refuses, in one transaction, the entries of `refused`'s entity queued behind it, a write
    /// the server refused with a 404 (the entity is gone there), up to the entity's next delete:
    /// none of them could ever follow it, so they are refused with it, as a new write of the
    /// entity is at once (``LocalStore/refuseBehindGone(collection:id:in:)``), and the app
    /// resolves them together (``Forwarder/retry(_:)``, ``Forwarder/discard(_:)``) instead of
    /// finding them pending for ever.
    ///
    /// The pending writes of an entity are a chain that ends at its next delete. When the app
    /// deleted the entity behind the refused write, the server and the app agree it is gone: the
    /// chain ends there (``StorageTransaction/endRefusedChain(collection:entityID:through:)``, as
    /// a delete the app makes after the refusal ends it): the refused writes before the delete are
    /// reported refused and removed with it, so a create behind that delete, which makes the
    /// entity anew, goes as the start of a new chain. Returns the entries refused, and whether
    /// the refused entry is settled (removed: the chain ended so, or the app settled it since).
    func refuseBehind(_ refused: OutboxEntry) async throws -> (refused: [OutboxEntry], ended: Bool) {
        let message = "an earlier write to \(refused.entityID) was refused: it is gone from the server"
        return try await storage.transaction { tx in
            let (collection, entityID) = (refused.collection, refused.entityID)
            // Settled since its refusal was written (the app's delete ended the chain, or the app
            // discarded it): a write recorded after that is a new chain's, not refused with it.
            guard try tx.outboxEntry(sequence: refused.sequence) != nil else { return ([], true) }
            let later = try tx.outboxEntries(collection: collection, entityID: entityID).filter {
                $0.sequence > refused.sequence
            }
            let end = later.first { $0.operation == .delete }
            var behind: [OutboxEntry] = []
            for var entry in later where end.map({ entry.sequence < $0.sequence }) ?? true {
                guard !entry.isRejected else { continue }
                entry.lastError = message
                entry.rejection = OutboxRejection(
                    status: 404, body: refused.rejection?.body ?? Data(), message: message)
                behind.append(entry)
            }
            guard let end else {
                for entry in behind { try tx.replaceOutbox(entry) }
                return (behind, false)
            }
            // Deleted by the app behind the refusal: the chain up to that delete is settled.
            try tx.endRefusedChain(collection: collection, entityID: entityID, through: end.sequence)
            return (behind, true)
        }
    }
}
