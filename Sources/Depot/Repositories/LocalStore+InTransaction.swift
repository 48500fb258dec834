import Foundation

// A repository's local writes inside a transaction the caller runs (a transactional outbox: the
// app's own SQL beside Depot's writes). The same rules as the `async` forms in
// LocalStore+Batch.swift, run on the caller's `StorageTransaction`; the forwarder is woken by the
// caller after its commit.

extension LocalStore {
    /// Stores local creates in `tx` (see ``create(_:idempotencyKey:)``).
    func create(_ entities: [Entity], in tx: any StorageTransaction) throws -> [Entity] {
        let collection = self.collection
        for entity in entities {
            let (id, object, payload) = (
                entity.id.pathComponent, try JSONMapping.object(entity), try outboxPayload?(entity)
            )
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
                    collection: collection, entityID: id, operation: .create, payload: .object(payload))
            }
        }
        return entities
    }

    /// Stores local updates in `tx` (see ``update(_:patch:idempotencyKey:)``, without `patch`).
    func update(_ entities: [Entity], in tx: any StorageTransaction) throws -> [Entity] {
        let collection = self.collection
        return try entities.map { entity in
            let sentID = entity.id.pathComponent
            var (id, object, payload) = (sentID, try JSONMapping.object(entity), try outboxPayload?(entity))
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
            let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
            try tx.upsert(
                StoredRecord(
                    collection: collection, id: id, object: object, syncState: state,
                    snapshot: existing?.snapshot, etag: existing?.etag))
            if let payload {
                try tx.recordOutbox(
                    collection: collection, entityID: id, operation: .update, payload: .object(payload))
            }
            return moved ? try JSONMapping.entity(Entity.self, from: .object(object)) : entity
        }
    }

    /// Deletes locally in `tx` (see ``delete(ids:idempotencyKey:)``).
    func delete(ids: [String], in tx: any StorageTransaction) throws {
        let (collection, recordsOutbox) = (self.collection, outboxPayload != nil)
        for sentID in ids {
            var id = sentID
            if try tx.fetch(collection: collection, id: id) == nil,
                let current = try tx.currentID(collection: collection, id: id)
            {
                id = current.id  // the server replaced the id: the delete goes to its entity
            }
            guard var existing = try tx.fetch(collection: collection, id: id), existing.syncState != .deleted else {
                throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
            }
            // A create already sent may have reached the server: then the delete must go too.
            let createSent =
                try recordsOutbox
                && tx.outboxEntries(collection: collection, entityID: id).contains { $0.attempts > 0 }
            if existing.syncState == .created, !createSent {
                try tx.delete(collection: collection, id: id)
            } else {
                existing.syncState = .deleted
                try tx.upsert(existing)
            }
            if recordsOutbox {
                try tx.recordOutbox(collection: collection, entityID: id, operation: .delete, payload: nil)
            }
        }
    }
}
