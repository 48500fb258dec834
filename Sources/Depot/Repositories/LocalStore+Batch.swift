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
        }.value
        notifyOutbox()
        return entities
    }

    /// Stores local updates, all in one transaction (`.updated`, or still `.created`). Each is
    /// recorded in the outbox when ``outboxPayload`` is set: the whole object, or with `patch` a
    /// merge patch from the stored object (no change, no entry); under `idempotencyKey` when given
    /// (one entity only: the key of a direct send that fell back).
    func update(_ entities: [Entity], patch: Bool = false, idempotencyKey: String? = nil) async throws -> [Entity] {
        precondition(idempotencyKey == nil || entities.count == 1, "one idempotency key is for one write")
        let records = try entities.map {
            (entity: $0, id: $0.id.pathComponent, object: try JSONMapping.object($0), payload: try outboxPayload?($0))
        }
        let collection = self.collection
        try await storage.transaction { tx in
            for (entity, id, object, payload) in records {
                let existing = try tx.fetch(collection: collection, id: id)
                let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
                try tx.upsert(
                    StoredRecord(
                        collection: collection, id: id, object: object, syncState: state,
                        snapshot: existing?.snapshot, etag: existing?.etag))
                guard let payload else { continue }
                if patch, existing != nil {
                    let base = existing.map { JSON.object($0.object) }
                    guard let diff = try EntityMergePatch.patch(Entity.self, from: base, to: entity) else { continue }
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .patch, payload: diff,
                        idempotencyKey: idempotencyKey)
                } else {
                    try tx.recordOutbox(
                        collection: collection, entityID: id, operation: .update, payload: .object(payload),
                        idempotencyKey: idempotencyKey)
                }
            }
        }.value
        notifyOutbox()
        return entities
    }

    /// Deletes locally, all in one transaction: one missing id (`.notFound`) deletes nothing. A
    /// record the server never saw goes at once (with its pending create, when the outbox is on);
    /// any other becomes a `.deleted` tombstone, recorded in the outbox when it is on (under
    /// `idempotencyKey` when given: one id only, the key of a direct send that fell back).
    func delete(ids: [String], idempotencyKey: String? = nil) async throws {
        precondition(idempotencyKey == nil || ids.count == 1, "one idempotency key is for one write")
        let (collection, recordsOutbox) = (self.collection, outboxPayload != nil)
        try await storage.transaction { tx in
            for id in ids {
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
        }.value
        notifyOutbox()
    }

    /// Wakes the forwarders of this storage after a write recorded outbox entries.
    private func notifyOutbox() {
        if outboxPayload != nil { OutboxCoordinator.notify(storage) }
    }
}
