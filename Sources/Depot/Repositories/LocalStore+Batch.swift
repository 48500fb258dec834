import Foundation

extension LocalStore {
    /// Stores local creates, all in one transaction: one taken id (`.conflict`) writes nothing.
    /// Each is recorded in the outbox when ``outboxPayload`` is set, under `idempotencyKey` when
    /// given (one entity only: the key of a direct send that fell back).
    func create(_ entities: [Entity], idempotencyKey: String? = nil) async throws -> [Entity] {
        precondition(idempotencyKey == nil || entities.count == 1, "one idempotency key is for one write")
        let records = try entities.map {
            (id: $0.id.pathComponent, object: try JSONMapping.object($0), payload: try outboxPayload?($0))
        }
        let collection = self.collection
        try await storage.transaction { tx in
            for (id, object, payload) in records {
                // A new entity under an id the server once replaced: writes to it are its own.
                try tx.forgetIDMove(collection: collection, id: id)
                if let existing = try tx.fetch(collection: collection, id: id), existing.syncState == .deleted {
                    try tx.upsert(
                        StoredRecord(
                            collection: collection, id: id, object: object, syncState: .updated,
                            snapshot: existing.snapshot, etag: existing.etag))
                } else {
                    try tx.insert(StoredRecord(collection: collection, id: id, object: object, syncState: .created))
                }
                if let payload {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .create, payload: .object(payload),
                        idempotencyKey: idempotencyKey)
                }
            }
        }
        notifyOutbox()
        return entities
    }

    /// Stores local updates, all in one transaction (`.updated`, or still `.created`). Each is
    /// recorded in the outbox when ``outboxPayload`` is set: the whole object, or with `patch` a
    /// merge patch from the stored object (no change, no entry); under `idempotencyKey` when given
    /// (one entity only: the key of a direct send that fell back).
    ///
    /// An entity whose id the server replaced (a create the server gave its own id) is written
    /// under the server's id, its id fields rewritten, and returned so; its old id still reaches it.
    /// A patch that changes nothing leaves the record as it is (a write that fell back after the
    /// server took it, and a pull stored it meanwhile, is already in place).
    func update(_ entities: [Entity], patch: Bool = false, idempotencyKey: String? = nil) async throws -> [Entity] {
        precondition(idempotencyKey == nil || entities.count == 1, "one idempotency key is for one write")
        let records = try entities.map {
            (id: $0.id.pathComponent, object: try JSONMapping.object($0), payload: try outboxPayload?($0))
        }
        let collection = self.collection
        let moved = try await storage.transaction { tx in
            var moved: [Int: JSONObject] = [:]
            for (index, (sentID, sentObject, sentPayload)) in records.enumerated() {
                var (id, object, payload) = (sentID, sentObject, sentPayload)
                var existing = try tx.fetch(collection: collection, id: id)
                if existing == nil, let current = try tx.currentID(collection: collection, id: id) {
                    // The server replaced the id: the write goes to the entity it made.
                    id = current.id
                    object = MovedIDs.rewrite(object, from: sentID, fields: current.fields)
                    payload = payload.map { MovedIDs.rewrite($0, from: sentID, fields: current.fields) }
                    existing = try tx.fetch(collection: collection, id: id)
                    moved[index] = object
                }
                var diff: JSON?
                if patch, payload != nil, let existing {
                    diff = try EntityMergePatch.patch(Entity.self, from: .object(existing.object), to: object)
                    // Nothing changed: the record stays as it is, synced or not.
                    if diff == nil { continue }
                }
                let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
                try tx.upsert(
                    StoredRecord(
                        collection: collection, id: id, object: object, syncState: state,
                        snapshot: existing?.snapshot, etag: existing?.etag))
                guard let payload else { continue }
                if let diff {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .patch, payload: diff,
                        idempotencyKey: idempotencyKey)
                } else {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .update, payload: .object(payload),
                        idempotencyKey: idempotencyKey)
                }
            }
            return moved
        }
        notifyOutbox()
        guard !moved.isEmpty else { return entities }
        return try entities.indices.map { index in
            guard let object = moved[index] else { return entities[index] }
            return try JSONMapping.entity(Entity.self, from: .object(object))
        }
    }

    /// Deletes locally, all in one transaction: one missing id (`.notFound`) deletes nothing. A
    /// record the server never saw goes at once (with its pending create, when the outbox is on);
    /// any other becomes a `.deleted` tombstone, recorded in the outbox when it is on (under
    /// `idempotencyKey` when given: one id only, the key of a direct send that fell back).
    func delete(ids: [String], idempotencyKey: String? = nil) async throws {
        precondition(idempotencyKey == nil || ids.count == 1, "one idempotency key is for one write")
        let (collection, recordsOutbox) = (self.collection, outboxPayload != nil)
        try await storage.transaction { tx in
            for sentID in ids {
                var id = sentID
                if try tx.fetch(collection: collection, id: id) == nil,
                    let current = try tx.currentID(collection: collection, id: id)
                {
                    id = current.id  // the server replaced the id: the delete goes to its entity
                }
                guard var existing = try tx.fetch(collection: collection, id: id), existing.syncState != .deleted
                else {
                    // A direct delete that may have reached the server is forwarded all the same
                    // (under its key), even for an entity this store never held.
                    if let idempotencyKey, recordsOutbox {
                        try tx.recordOutbox(
                            collection: collection, entityID: id, operation: .delete, payload: nil,
                            idempotencyKey: idempotencyKey)
                        continue
                    }
                    throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
                }
                // A create already sent may have reached the server: then the delete must go too.
                let createSent =
                    try recordsOutbox
                    && tx.outboxEntries(collection: collection, entityID: id).contains { $0.attempts > 0 }
                if existing.syncState == .created, !createSent, idempotencyKey == nil {
                    try tx.delete(collection: collection, id: id)
                } else {
                    existing.syncState = .deleted
                    try tx.upsert(existing)
                }
                if recordsOutbox {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .delete, payload: nil,
                        idempotencyKey: idempotencyKey)
                }
            }
        }
        notifyOutbox()
    }

    /// Wakes the forwarders of this storage after a write recorded outbox entries.
    private func notifyOutbox() {
        if outboxPayload != nil { OutboxCoordinator.notify(storage) }
    }
}
