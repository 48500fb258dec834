import Foundation

extension LocalStore {
    /// Stores local creates, all in one transaction: one taken id (`.conflict`) writes nothing.
    func create(_ entities: [Entity]) async throws -> [Entity] {
        let records = try entities.map { (id: $0.id.pathComponent, object: try JSONMapping.object($0)) }
        let collection = self.collection
        try await storage.transaction { tx in
            for (id, object) in records {
                if let existing = try tx.fetch(collection: collection, id: id), existing.syncState == .deleted {
                    try tx.upsert(
                        StoredRecord(
                            collection: collection, id: id, object: object, syncState: .updated,
                            snapshot: existing.snapshot, etag: existing.etag))
                } else {
                    try tx.insert(StoredRecord(collection: collection, id: id, object: object, syncState: .created))
                }
            }
        }.value
        return entities
    }

    /// Stores local updates, all in one transaction (`.updated`, or still `.created`).
    func update(_ entities: [Entity]) async throws -> [Entity] {
        let records = try entities.map { (id: $0.id.pathComponent, object: try JSONMapping.object($0)) }
        let collection = self.collection
        try await storage.transaction { tx in
            for (id, object) in records {
                let existing = try tx.fetch(collection: collection, id: id)
                let state: SyncState = existing == nil || existing?.syncState == .created ? .created : .updated
                try tx.upsert(
                    StoredRecord(
                        collection: collection, id: id, object: object, syncState: state,
                        snapshot: existing?.snapshot, etag: existing?.etag))
            }
        }.value
        return entities
    }

    /// Deletes locally, all in one transaction: one missing id (`.notFound`) deletes nothing.
    func delete(ids: [String]) async throws {
        let collection = self.collection
        try await storage.transaction { tx in
            for id in ids {
                guard var existing = try tx.fetch(collection: collection, id: id), existing.syncState != .deleted
                else {
                    throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
                }
                if existing.syncState == .created {
                    try tx.delete(collection: collection, id: id)
                } else {
                    existing.syncState = .deleted
                    try tx.upsert(existing)
                }
            }
        }.value
    }
}
