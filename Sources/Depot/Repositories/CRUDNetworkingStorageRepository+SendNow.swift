import Foundation

// The remote-first write road: the local write and its outbox entry in one transaction, then that
// entry delivered now by the storage's sender (OutboxEngine+Now.swift), behind the entity's
// earlier entries, so ids moved by their answers apply to it as to any entry.

/// A remote-first write as its recording transaction left it.
struct RecordedWrite<Value: Sendable>: Sendable {
    /// The id the write went to (the server's, when it had replaced the one the app passed).
    var id: String
    /// The entry the write recorded; nil when it recorded none (a patch that changes nothing).
    var sequence: Int64?
    /// The record before the write, and as the write left it.
    var prior: StoredRecord?
    var written: StoredRecord?
    /// What the local write returned.
    var value: Value
    /// The entity's earlier unsent entry the write folded into (``UnsentFold/into(sequence:)``):
    /// that entry carries it to the server, and its answer is the write's; nil when it did not fold.
    var carrier: Int64?
}

extension CRUDNetworkingStorageRepository {
    /// Runs a write under a remote-first rule that keeps the store in step (target `.remote`,
    /// `synchronize` on, no fallback or `.local`), or returns nil under any other rule.
    ///
    /// `write` makes the local write under `idempotencyKey` in the recording transaction (it
    /// records the outbox entry; no forwarder is woken), which also claims the entry
    /// (``OutboxEngine/recordNow(collection:_:)``): no other sender can take it. The entry is
    /// then delivered now (``OutboxEngine/deliverNow(_:keeps:undo:)``): delivered, the
    /// answer is `answer`'s value with origin `.remote`; not delivered for a reason the rule falls
    /// back on (the earlier writes held back, offline, a timeout), it stays queued and the local
    /// value answers with origin `.local` and the fallback error; refused (or failing without a
    /// fallback), the write is taken back in one transaction with the entry's removal, and the
    /// error thrown.
    ///
    /// Under any other rule a write sent to the server is no entry, and needs none, because
    /// nothing records it and so no other road can send it: a rule with `synchronize` off keeps
    /// no local copy (the request goes once, by this call, after the entity's earlier entries and
    /// to the id their answers moved it to; a fallback records it under the same key, counted
    /// sent), and a local target falls back to the server only when its local write failed
    /// (nothing stored: an id the store does not hold, or a store that fails).
    func sendingNow<Value: Sendable>(
        _ operation: RepositoryOperation, entityID: String, idempotencyKey: String,
        write: @escaping @Sendable (LocalStore<Entity>, any StorageTransaction) throws -> Value,
        answer: @escaping @Sendable (OutboxChannel.Answer?, RecordedWrite<Value>) throws -> Value
    ) -> Promise<Sourced<Value>>? {
        let rule = strategy.rule(for: operation)
        guard rule.target == .remote, rule.synchronize, rule.fallback != .remote else { return nil }
        let (writes, storage, collection, engine) = (outboxLocal, storage, collection, outboxEngine)
        let fallsBack = rule.fallback == .local
        return Promise {
            // The entry is claimed in the transaction that records it: no other sender can take
            // it before this write's own send.
            let (recorded, claimed) = try await engine.recordNow(collection: collection) {
                tx -> (RecordedWrite<Value>, entityID: String, sequence: Int64?) in
                // The write goes to the id as the app gave it, or to the id the server replaced it
                // with (an update or delete of a moved entity; a create makes a new entity under
                // the app's id): the entry it recorded under its key says which.
                var ids = [entityID]
                if try tx.fetch(collection: collection, id: entityID) == nil,
                    let current = try tx.currentID(collection: collection, id: entityID)
                {
                    ids.insert(current.id, at: 0)
                }
                let priors = try ids.map { try tx.fetch(collection: collection, id: $0) }
                let value = try write(writes, tx)
                var id = ids[0]
                var entry: OutboxEntry?
                for candidate in ids where entry == nil {
                    entry = try tx.outboxEntries(collection: collection, entityID: candidate).last {
                        $0.idempotencyKey == idempotencyKey
                    }
                    if entry != nil { id = candidate }
                }
                // Nothing is sent yet: a write behind an entry never sent folds into it as a local
                // write does (a draft never sent and then deleted leaves nothing to send); the
                // entity's chain then goes as the earlier writes do.
                var carrier: Int64?
                if let recordedEntry = entry {
                    switch try tx.foldIntoUnsent(recordedEntry) {
                    case .kept: break
                    case .into(let sequence): (entry, carrier) = (nil, sequence)
                    case .cancelled: entry = nil
                    }
                }
                let recorded = RecordedWrite(
                    id: id, sequence: entry?.sequence, prior: priors[ids.firstIndex(of: id) ?? 0],
                    written: try tx.fetch(collection: collection, id: id), value: value, carrier: carrier)
                return (recorded, id, entry?.sequence)
            }
            guard let claimed else {
                // No entry of its own to send: the write folded into the entity's unsent entry,
                // or changed nothing (a patch). The entity's earlier writes still go first; the
                // answer of the entry that carried the write (the fact the fold recorded) is the
                // write's, as it is for a write sent as its own entry: the server's copy, never
                // the value the app passed labelled as the server's.
                let carried: CarriedAnswer
                do {
                    carried = try await Self.forwardEarlier(recorded.id, engine, answerOf: recorded.carrier)
                } catch let error as DepotError where fallsBack && error.warrantsFallback(from: .remote) {
                    return Sourced(value: recorded.value, origin: .local, fallbackError: error)
                }
                guard case .delivered(let delivered) = carried else {
                    return Sourced(value: recorded.value, origin: .remote)
                }
                return Sourced(value: try answer(delivered, recorded), origin: .remote)
            }
            let outcome = try await engine.deliverNow(
                claimed, keeps: { fallsBack && $0.warrantsFallback(from: .remote) },
                undo: { tx in try Self.takeBack(recorded, collection: collection, in: tx) })
            switch outcome {
            case .delivered(let delivered):
                return Sourced(value: try answer(delivered, recorded), origin: .remote)
            case .kept(let error):
                guard fallsBack else { throw error }
                // The forwarder sends it later; a local answer given because the server failed.
                OutboxCoordinator.notify(storage)
                return Sourced(value: recorded.value, origin: .local, fallbackError: error)
            case .undone(let error), .refused(let error):
                throw error
            }
        }
    }

    /// Takes a recorded write back in `tx` (its entry is removed in the same transaction): the
    /// record as it was before, unless a later write changed it since. When an earlier entry's
    /// answer moved the entity or stored the server's copy meanwhile, the record becomes the
    /// server's copy (no entry left) or the write's predecessor over the server's snapshot. A record
    /// put back renews the collection's list token (``RecordSource/takeBack(_:)``): a cached list
    /// that named it as it was is not answered again without asking the server.
    static func takeBack<Value>(
        _ recorded: RecordedWrite<Value>, collection: String, in tx: any StorageTransaction
    ) throws {
        var id = recorded.id
        var fields: JSONObject?
        if try tx.fetch(collection: collection, id: id) == nil,
            let current = try tx.currentID(collection: collection, id: id)
        {
            (id, fields) = (current.id, current.fields)
        }
        let moved: (JSONObject) -> JSONObject = { object in
            fields.map { MovedIDs.rewrite(object, from: recorded.id, fields: $0) } ?? object
        }
        guard var now = try tx.fetch(collection: collection, id: id) else {
            if recorded.written == nil, fields == nil, let prior = recorded.prior {
                _ = try tx.writeRecord(.takeBack(prior))
            }
            return
        }
        // A later local write since this one (an entry recorded after its own): it stands. A
        // server copy merged since (a read's, with this write's change on top) is no write.
        let left = try tx.outboxEntries(collection: collection, entityID: id)
        if let sequence = recorded.sequence, left.contains(where: { $0.sequence > sequence }) { return }
        guard recorded.written != nil else { return }
        // Nothing delivered meanwhile (the server's snapshot is the one the write found, and a
        // pending change the record had still has its entries): the record as it was. An earlier
        // entry's answer stored since is newer than that record; a delete delivered since leaves
        // no tombstone to put back.
        if fields == nil, now.snapshot == recorded.prior?.snapshot, now.etag == recorded.prior?.etag,
            let prior = recorded.prior, prior.syncState == .synced || !left.isEmpty
        {
            _ = try tx.writeRecord(.takeBack(prior))
            return
        }
        guard let prior = recorded.prior else {
            _ = try tx.writeRecord(.localRemoval(collection: collection, id: id))
            return
        }
        // With no entry left, the server's copy when there is one: a delete before this write may
        // have been refused and taken back as well, and a record removed here would lose the
        // `ETag` the next write needs (a copy the server deleted goes at the next read or pull).
        if left.isEmpty, let snapshot = now.snapshot {
            (now.object, now.syncState) = (snapshot, .synced)  // the server's copy: nothing else pending
            _ = try tx.writeRecord(.takeBack(now))
            return
        }
        // With no entry left, a pending change the record had before this write is no longer
        // queued (itself taken back): put back, no road would ever send it. With no server copy
        // either, nothing is left to show.
        guard prior.syncState == .synced || !left.isEmpty else {
            _ = try tx.writeRecord(.localRemoval(collection: collection, id: id))
            return
        }
        (now.object, now.syncState) = (moved(prior.object), prior.syncState)
        _ = try tx.writeRecord(.takeBack(now))
    }
}
