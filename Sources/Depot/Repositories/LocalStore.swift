import Foundation

/// The entity-level view of one collection of a ``Storage``: maps entities to records and applies
/// the sync-state rules (a local write marks the record unsynced; a local delete of a record the
/// server has leaves a tombstone). Shared by ``StorageRepository`` and
/// ``CRUDNetworkingStorageRepository``.
struct LocalStore<Entity: Identifiable & Sendable>: Sendable where Entity.ID: PathComponentConvertible {
    let storage: Storage
    let collection: String

    func record(id: String) async throws -> StoredRecord? {
        guard let record = try await storage.fetch(collection: collection, id: id).value, record.syncState != .deleted
        else { return nil }
        return record
    }

    func read(id: String) async throws -> Entity {
        guard let record = try await record(id: id) else {
            throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
        }
        return try JSONMapping.entity(Entity.self, from: .object(record.object))
    }

    func readAll(_ criteria: Criteria) async throws -> [Entity] {
        try await storage.fetch(collection: collection, matching: criteria).value.map {
            try JSONMapping.entity(Entity.self, from: .object($0.object))
        }
    }

    /// Stores a local create (`.created`); rejects with `.conflict` when the id is taken.
    func create(_ entity: Entity) async throws -> Entity {
        let object = try JSONMapping.object(entity)
        let id = entity.id.pathComponent
        if let existing = try await storage.fetch(collection: collection, id: id).value, existing.syncState == .deleted {
            // Re-creating what was deleted locally but not yet on the server: it is an update.
            try await storage.upsert(StoredRecord(collection: collection, id: id, object: object, syncState: .updated, snapshot: existing.snapshot)).value
            return entity
        }
        try await storage.insert(StoredRecord(collection: collection, id: id, object: object, syncState: .created)).value
        return entity
    }

    /// Stores a local update: `.updated`, or still `.created` if the server has never seen it.
    func update(_ entity: Entity) async throws -> Entity {
        let id = entity.id.pathComponent
        let existing = try await storage.fetch(collection: collection, id: id).value
        let state: SyncState = existing?.syncState == .created ? .created : (existing == nil ? .created : .updated)
        let record = StoredRecord(
            collection: collection, id: id, object: try JSONMapping.object(entity), syncState: state, snapshot: existing?.snapshot
        )
        try await storage.upsert(record).value
        return entity
    }

    /// Deletes locally: gone at once if the server never saw it, else a `.deleted` tombstone.
    func delete(id: String) async throws {
        guard var existing = try await storage.fetch(collection: collection, id: id).value, existing.syncState != .deleted else {
            throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
        }
        if existing.syncState == .created {
            _ = try await storage.delete(collection: collection, id: id).value
        } else {
            existing.syncState = .deleted
            try await storage.upsert(existing).value
        }
    }

    /// Stores what the server answered: `.synced`, with the answer as the snapshot.
    func storeSynced(_ entities: [Entity]) async throws {
        let records = try entities.map { entity in
            let object = try JSONMapping.object(entity)
            return StoredRecord(collection: collection, id: entity.id.pathComponent, object: object, syncState: .synced, snapshot: object)
        }
        try await storage.upsert(records).value
    }

    /// Forgets an entity the server no longer has.
    func remove(id: String) async throws {
        _ = try await storage.delete(collection: collection, id: id).value
    }
}
