import Foundation

// A repository's local writes on a `StorageTransaction`: the one rule for each, used by the async
// forms (LocalStore+Batch.swift, each in its own transaction) and by a transaction the caller runs
// (a transactional outbox: the app's own SQL beside Depot's writes), whose caller wakes the
// forwarder after its commit.

extension LocalStore {
    /// Stores local creates in `tx`. Each is recorded in the outbox when ``outboxPayload`` is set,
    /// under `idempotencyKey` when given (one entity only: the key of a direct send that fell back).
    ///
    /// With `madeIDs`, each entity's id is one Depot made (a ``TemporaryID``), recorded as such in
    /// the same transaction, so every send leaves it out; so is an id ``TemporaryID/make(_:)``
    /// gave the app.
    ///
    /// An id the server once replaced (a recorded move) whose entity's delete is still queued is
    /// created under the server's id, behind that delete: one entity's writes reach the server in
    /// the order the app made them, whichever spelling the app uses.
    ///
    /// - Throws: `DepotError` `.conflict` when an id is taken, also when the server spells it
    ///   another way (a UUID in lower case) and the store holds its entity under that spelling.
    func create(
        _ entities: [Entity], idempotencyKey: String? = nil, madeIDs: Bool = false, in tx: any StorageTransaction
    ) throws -> [Entity] {
        let collection = self.collection
        var stored: [Entity] = []
        for entity in entities {
            var id = entity.id.pathComponent
            var object = try JSONMapping.object(entity, coding: coding)
            var payload = try outboxPayload?(entity, object)
            var named = false
            // One read of the id decides (`insert` would read it again), and one read of where it
            // moved when the store holds nothing under it (a create the server gave another id).
            var existing = try tx.fetch(collection: collection, id: id)
            if existing == nil, let moved = try tx.currentID(collection: collection, id: id),
                let target = try tx.fetch(collection: collection, id: moved.id)
            {
                if target.syncState == .deleted {
                    // Its delete still queued: the create goes behind it, in its chain, under the
                    // id the server gave (the server sees the delete, then the create, in the
                    // order the app made them).
                    if try !tx.outboxEntries(collection: collection, entityID: moved.id).isEmpty {
                        object = MovedIDs.rewrite(object, from: id, fields: moved.fields)
                        payload = payload.map { MovedIDs.rewrite($0, from: id, fields: moved.fields) }
                        (id, named, existing) = (moved.id, true, target)
                    }
                } else if let uuid = UUID(uuidString: id), UUID(uuidString: moved.id) == uuid {
                    // The id the server spells another way (a UUID in lower case) is the same id:
                    // taken while the store holds its entity.
                    throw DepotError(
                        .conflict,
                        "\(collection) already has a record with id \(id) (spelled \(moved.id) by the server)")
                }
            }
            if try following(references, object: &object, payload: &payload, in: tx) { named = true }
            stored.append(named ? try JSONMapping.entity(Entity.self, from: .object(object), coding: coding) : entity)
            // The one record-write function keeps the rest (a new entity under an id the server
            // once replaced, a temporary id used again, has writes of its own: a record under the
            // id comes first, and its removal forgets the move).
            switch existing {
            case let existing? where existing.syncState == .deleted:
                try tx.writeRecord(
                    .local(
                        StoredRecord(
                            collection: collection, id: id, object: object, syncState: .updated,
                            snapshot: existing.snapshot, etag: existing.etag), replacing: true))
            case .some:
                throw DepotError(.conflict, "\(collection) already has a record with id \(id)")
            case nil:
                try tx.writeRecord(
                    .local(
                        StoredRecord(collection: collection, id: id, object: object, syncState: .created),
                        replacing: false))
            }
            if madeIDs || TemporaryID.wasIssued(id) { try tx.recordTemporaryID(collection: collection, id: id) }
            if let payload {
                try tx.recordOutbox(
                    collection: collection, entityID: id, operation: .create, payload: .object(payload),
                    idempotencyKey: idempotencyKey, account: account)
            }
            try tx.recordReferences(references, collection: collection, id: id, object: object)
        }
        return stored
    }

    /// Points each of `references` in `object` and `payload` whose target's id moved at the id it
    /// has now (``StorageTransaction/followingMovedReferences(_:references:)``). Returns whether
    /// `object` changed.
    private func following(
        _ references: [EntityReference], object: inout JSONObject, payload: inout JSONObject?,
        in tx: any StorageTransaction
    ) throws -> Bool {
        guard !references.isEmpty else { return false }
        let followed = try tx.followingMovedReferences(object, references: references)
        payload = try payload.map { try tx.followingMovedReferences($0, references: references) }
        defer { object = followed }
        return followed != object
    }

    /// Stores local updates in `tx` (`.updated`, or still `.created`). Each is recorded in the
    /// outbox when ``outboxPayload`` is set: the whole object, or with `patch` a merge patch from
    /// the stored object (no change, no entry); under `idempotencyKey` when given (one entity
    /// only: the key of a direct send that fell back).
    ///
    /// An entity whose id the server replaced (a create the server gave its own id) is written
    /// under the server's id, its id fields rewritten, and returned so; its old id still reaches it.
    /// A patch that changes nothing leaves the record as it is (a write that fell back after the
    /// server took it, and a pull stored it meanwhile, is already in place).
    ///
    /// - Throws: `DepotError` `.notFound` (nothing written) when the outbox is on and the server
    ///   refused an earlier write of the entity with a 404: it is gone there, and an edit queued
    ///   behind that refusal would never go; also for an id Depot made that the store holds
    ///   nothing under (its create cancelled, or its entity deleted after the server named it):
    ///   no server knows that id.
    func update(
        _ entities: [Entity], patch: Bool = false, idempotencyKey: String? = nil, in tx: any StorageTransaction
    ) throws -> [Entity] {
        let collection = self.collection
        return try entities.map { entity in
            let sentID = entity.id.pathComponent
            var (id, object) = (sentID, try JSONMapping.object(entity, coding: coding))
            var payload = try outboxPayload?(entity, object)
            var existing = try tx.fetch(collection: collection, id: id)
            var moved = false
            if existing == nil, let current = try tx.currentID(collection: collection, id: id) {
                // The server replaced the id: the write goes to the entity it made.
                id = current.id
                object = MovedIDs.rewrite(object, from: sentID, fields: current.fields)
                payload = payload.map { MovedIDs.rewrite($0, from: sentID, fields: current.fields) }
                existing = try tx.fetch(collection: collection, id: id)
                moved = true
            }
            if existing == nil, try tx.isTemporaryID(collection: collection, id: id) {
                throw DepotError(.notFound, "no \(collection) with id \(id): an id Depot made whose entity is gone")
            }
            if try following(references, object: &object, payload: &payload, in: tx) { moved = true }
            if payload != nil { try Self.refuseBehindGone(collection: collection, id: id, in: tx) }
            let stored = moved ? try JSONMapping.entity(Entity.self, from: .object(object), coding: coding) : entity
            var diff: JSON?
            if patch, payload != nil, let existing {
                diff = try EntityMergePatch.patch(
                    Entity.self, from: .object(existing.object), to: object, coding: coding)
                // Nothing changed: the record stays as it is, synced or not.
                if diff == nil { return stored }
            }
            let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
            // The server's validators no longer describe the record: the one rule drops them.
            try tx.writeRecord(
                .local(
                    StoredRecord(
                        collection: collection, id: id, object: object, syncState: state,
                        snapshot: existing?.snapshot, etag: existing?.etag), replacing: existing != nil))
            try tx.recordReferences(references, collection: collection, id: id, object: object)
            guard let payload else { return stored }
            if let diff {
                try tx.recordOutbox(
                    collection: collection, entityID: id, operation: .patch, payload: diff,
                    idempotencyKey: idempotencyKey, account: account)
            } else {
                try tx.recordOutbox(
                    collection: collection, entityID: id, operation: .update, payload: .object(payload),
                    idempotencyKey: idempotencyKey, account: account)
            }
            return stored
        }
    }

    /// Deletes locally in `tx`. A record the server never saw goes at once with its pending
    /// create, when the outbox folds the delete into that create (an unsent create it may change;
    /// without the outbox, any created record); any other becomes a `.deleted` tombstone, recorded
    /// in the outbox when it is on (under `idempotencyKey` when given: one id only, the key of a
    /// direct send that fell back).
    ///
    /// When the outbox is on and the server refused an earlier write of the entity with a 404 (it
    /// is gone there), the delete agrees with the server: it ends the entity's refused chain (its
    /// entries are removed, the record goes) and records nothing to send, so a create of the id
    /// after it starts a new chain and is sent.
    ///
    /// - Throws: `DepotError` `.notFound` when an id has no record (nothing is deleted).
    func delete(ids: [String], idempotencyKey: String? = nil, in tx: any StorageTransaction) throws {
        let (collection, recordsOutbox) = (self.collection, outboxPayload != nil)
        for sentID in ids {
            var id = sentID
            if try tx.fetch(collection: collection, id: id) == nil,
                let current = try tx.currentID(collection: collection, id: id)
            {
                id = current.id  // the server replaced the id: the delete goes to its entity
            }
            // The server refused a write of it with a 404: it is gone there, and the app deletes
            // it too. They agree: the delete ends the refused chain, and there is nothing to send.
            if recordsOutbox, try tx.refusedAsGone(collection: collection, entityID: id) {
                try tx.endRefusedChain(collection: collection, entityID: id)
                continue
            }
            guard var existing = try tx.fetch(collection: collection, id: id), existing.syncState != .deleted else {
                // A direct delete that may have reached the server is forwarded all the same
                // (under its key), even for an entity this store never held; never by an id Depot
                // made that the server did not replace (its create never reached the server).
                if let idempotencyKey, recordsOutbox, try !tx.isTemporaryID(collection: collection, id: id) {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .delete, payload: nil,
                        idempotencyKey: idempotencyKey, account: account)
                    continue
                }
                throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
            }
            // The record goes only when nothing is left to send for it: the delete cancelled the
            // entity's unsent create (create+delete), as the outbox decided. A delete queued behind
            // a create that stays (sent, so maybe applied; queued by an older model, left as
            // written; another account's) leaves a tombstone: else that create's answer would
            // store the record anew, synced, and the delete's answer would find nothing of it to
            // remove.
            let cancelledCreate: Bool
            if recordsOutbox {
                cancelledCreate =
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .delete, payload: nil,
                        idempotencyKey: idempotencyKey, account: account) == nil
            } else {
                cancelledCreate = existing.syncState == .created && idempotencyKey == nil
            }
            if cancelledCreate {
                try tx.writeRecord(.localRemoval(collection: collection, id: id))
            } else {
                existing.syncState = .deleted
                try tx.writeRecord(.local(existing, replacing: true))
            }
        }
    }

    /// Throws `.notFound` when the server refused an earlier write of the entity with a 404: it is
    /// gone there, and a write queued behind that refusal would never go. The app resolves the
    /// refusal with ``Forwarder/retry(_:)`` or ``Forwarder/discard(_:)``.
    static func refuseBehindGone(collection: String, id: String, in tx: any StorageTransaction) throws {
        let refusals = try tx.outboxEntries(collection: collection, entityID: id).lazy.compactMap(\.rejection)
        guard let gone = refusals.first(where: { $0.status == 404 }) else { return }
        throw gone.error(prefix: "\(id) is gone from the server (an earlier write to it was refused): ")
    }
}
