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

    /// Stores a local create (`.created`); rejects with `.conflict` when the id is taken. Reads
    /// and writes in one transaction, so a concurrent write to the id cannot slip in between.
    func create(_ entity: Entity) async throws -> Entity {
        let object = try JSONMapping.object(entity)
        let (collection, id) = (self.collection, entity.id.pathComponent)
        try await storage.transaction { tx in
            if let existing = try tx.fetch(collection: collection, id: id), existing.syncState == .deleted {
                // Re-creating what was deleted locally but not yet on the server: it is an update.
                try tx.upsert(
                    StoredRecord(
                        collection: collection, id: id, object: object, syncState: .updated,
                        snapshot: existing.snapshot,
                        etag: existing.etag))
            } else {
                try tx.insert(StoredRecord(collection: collection, id: id, object: object, syncState: .created))
            }
        }.value
        return entity
    }

    /// Stores a local update: `.updated`, or still `.created` if the server has never seen it; the
    /// server's snapshot and `ETag` are kept, so a later PATCH sends the same diff. One
    /// transaction, like ``create(_:)``.
    func update(_ entity: Entity) async throws -> Entity {
        let object = try JSONMapping.object(entity)
        let (collection, id) = (self.collection, entity.id.pathComponent)
        try await storage.transaction { tx in
            let existing = try tx.fetch(collection: collection, id: id)
            let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
            try tx.upsert(
                StoredRecord(
                    collection: collection, id: id, object: object, syncState: state, snapshot: existing?.snapshot,
                    etag: existing?.etag))
        }.value
        return entity
    }

    /// Deletes locally: gone at once if the server never saw it, else a `.deleted` tombstone.
    /// One transaction, like ``create(_:)``.
    func delete(id: String) async throws {
        try await delete(ids: [id])
    }

    /// Stores what the server answered: `.synced`, with the entity re-encoded as the snapshot (fields
    /// it does not model are lost, and no `ETag` is kept): ``storeAnswers(_:)`` keeps both.
    func storeSynced(_ entities: [Entity]) async throws {
        let records = try entities.map { entity in
            let object = try JSONMapping.object(entity)
            return StoredRecord(
                collection: collection, id: entity.id.pathComponent, object: object, syncState: .synced,
                snapshot: object)
        }
        try await storage.upsert(records).value
    }

    /// Stores what the server answered: `.synced`, with the server's JSON as it came as the snapshot
    /// (the entity's own object when the answer kept none) and the answer's `ETag`.
    func storeAnswers(_ answers: [RemoteAnswer<Entity>]) async throws {
        let records = try answers.map { answer in
            let object = try JSONMapping.object(answer.entity)
            return StoredRecord(
                collection: collection, id: answer.entity.id.pathComponent, object: object, syncState: .synced,
                snapshot: answer.json?.objectValue ?? object, etag: answer.etag)
        }
        try await storage.upsert(records).value
    }

    /// The stored record with `id`, tombstones included.
    func anyRecord(id: String) async throws -> StoredRecord? {
        try await storage.fetch(collection: collection, id: id).value
    }

    /// Forgets an entity the server no longer has.
    func remove(id: String) async throws {
        _ = try await storage.delete(collection: collection, id: id).value
    }
}
