import Foundation

extension StorageRepository {
    /// Stores new entities in one transaction: all of them, or none when an id is taken.
    ///
    /// ```swift
    /// try await local.create([first, second]).value
    /// ```
    ///
    /// - Returns: the entities, stored `.created` (or `.updated` over a local tombstone).
    /// - Throws: (in the promise) `DepotError` `.conflict` when an id is taken (nothing written).
    public func create(_ entities: [Entity]) -> Promise<[Entity]> {
        let local = self.local
        return Promise { try await local.create(entities) }
    }

    /// Stores the entities in place of those with their ids (creating missing ones), in one
    /// transaction; they are marked unsynced.
    public func update(_ entities: [Entity]) -> Promise<[Entity]> {
        let local = self.local
        return Promise { try await local.update(entities) }
    }

    /// Deletes the entities in one transaction: all of them, or none when one is missing.
    ///
    /// - Throws: (in the promise) `DepotError` `.notFound` when an entity is not stored (nothing
    ///   deleted).
    @discardableResult
    public func delete(_ entities: [Entity]) -> Promise<Void> {
        let (local, ids) = (self.local, entities.map(\.id.pathComponent))
        return Promise { try await local.delete(ids: ids) }
    }
}

extension CRUDNetworkingStorageRepository {
    /// The locally stored entities matching `criteria` (every one by default), without asking the
    /// server: records deleted locally are left out unless the criteria include them.
    ///
    /// ```swift
    /// let anns = try await cached.readAll(Criteria(["author": "ann"], sort: [.descending("likes")])).value
    /// ```
    public func readAll(_ criteria: Criteria) -> Promise<[Entity]> {
        let local = self.local
        return Promise { try await local.readAll(criteria) }
    }
}
