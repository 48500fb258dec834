import Foundation

extension Synchronizer {
    /// Stores the matched replies in one transaction. A record still as it was sent has its claimed
    /// outbox entries removed and the reply stored by the one rule
    /// (``StorageTransaction/storeServerAnswer(_:collection:sentID:)``: `.synced`, under the
    /// server's id, its other entries moved with it). One changed since
    /// keeps its change, with the reply as its snapshot; its claimed entries go all the same (the
    /// server took them), and it moves to the server's id with its later entries, a create among
    /// them sent as an update (see ``settleChanged(_:_:claim:identityKey:in:)``). Returns how many had changed.
    func merge(_ merges: inout [Merge], claim: Claim) async throws -> Int {
        guard !merges.isEmpty else { return 0 }
        let (collection, batch, identityKey) = (self.collection, merges, configuration.identityKey)
        return try await storage.transaction { tx in
            var changed = 0
            for merge in batch {
                let current = try tx.fetch(collection: collection, id: merge.sent.id)
                if let current, current.object == merge.sent.object, current.syncState == merge.sent.syncState {
                    for sequence in claim.sequences[merge.sent.id] ?? [] { try tx.removeOutbox(sequence: sequence) }
                    try tx.storeServerAnswer(
                        EncodedRecord.answer(
                            collection: collection, id: merge.id, object: merge.object, json: merge.snapshot,
                            etag: nil),
                        collection: collection, sentID: merge.sent.id)
                    continue
                }
                changed += 1
                guard let current else { continue }
                try Self.settleChanged(current, merge, claim: claim, identityKey: identityKey, in: tx)
            }
            return changed
        }.value
    }

    /// Stores the reply for `current`, a record changed locally while its write was in flight:
    /// the server now holds what was sent, so the claimed entries go, and the local change stays,
    /// diffed from the reply, to be sent as an update (or a delete) of the server's id. A
    /// server-chosen id moves the record and the entity's later entries to it (the identity key
    /// in their objects too). With no entry left for the change (a ``StorageRepository`` write
    /// records none), one is recorded, so the change is not lost.
    static func settleChanged(
        _ current: StoredRecord, _ merge: Merge, claim: Claim, identityKey: String, in tx: any StorageTransaction
    ) throws {
        let (collection, oldID, newID) = (current.collection, merge.sent.id, merge.id)
        let claimed = Set(claim.sequences[oldID] ?? [])
        for sequence in claimed { try tx.removeOutbox(sequence: sequence) }
        let newValue = merge.object[identityKey]
        func moved(_ object: JSONObject) -> JSONObject {
            guard newID != oldID, let newValue, object[identityKey] != nil else { return object }
            var object = object
            object[identityKey] = newValue
            return object
        }
        var record = current
        record.id = newID
        record.object = moved(current.object)
        record.snapshot = merge.snapshot
        record.etag = nil
        if record.syncState == .created { record.syncState = .updated }
        if newID != oldID { try tx.delete(collection: collection, id: oldID) }
        try tx.upsert(record)
        let later = try tx.outboxEntries(collection: collection, entityID: oldID).filter {
            !claimed.contains($0.sequence)
        }
        for var entry in later {
            entry.entityID = newID
            // The server holds the entity: a create left behind would make a second one.
            if entry.operation == .create { entry.operation = .update }
            if case .object(let object)? = entry.payload, entry.operation != .patch {
                entry.payload = .object(moved(object))
            }
            try tx.replaceOutbox(entry)
        }
        if later.isEmpty, try tx.outboxEntries(collection: collection, entityID: newID).isEmpty {
            try adopt(record, in: tx)
        }
    }
}
