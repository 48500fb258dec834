import Foundation

extension CRUDNetworkingStorageRepository {
    /// The id the server gave the entity created under `id` (a ``TemporaryID``, or any id the
    /// server replaced with its own); nil while the create waits to be delivered, or when the
    /// server kept `id`.
    ///
    /// Reads and writes under the old id follow the move by themselves; this tells the app the id
    /// to show or to link to.
    ///
    /// ```swift
    /// let draft = try await notes.create(["title": "offline"]).value.value   // draft.id < 0
    /// _ = try await notes.synchronize().value
    /// let id = try await notes.serverID(of: draft.id)                       // the server's id
    /// ```
    ///
    /// - Throws: `DepotError` `.storage` when the store cannot be read, `.decoding` when the
    ///   moved record no longer reads as an `Entity`.
    public func serverID(of id: Entity.ID) async throws -> Entity.ID? {
        let local = self.local
        guard let moved = try await local.moved(id: id.pathComponent) else { return nil }
        if let record = try await storage.fetch(collection: collection, id: moved.id) {
            return try local.decoded(record).id
        }
        // Deleted since: the id's text is all there is.
        switch Entity.ID.self {
        case is Int.Type: return Int(moved.id) as? Entity.ID
        case is Int64.Type: return Int64(moved.id) as? Entity.ID
        case is String.Type: return moved.id as? Entity.ID
        case is UUID.Type: return UUID(uuidString: moved.id) as? Entity.ID
        default: return nil
        }
    }

    /// Whether `id` is a ``TemporaryID`` Depot made for an entity created offline whose id the
    /// server has not given yet: the store's record, made with the create, not the id's spelling.
    /// An id the app chose (`"local-news"`, `-5`) is never temporary; a temporary id the server
    /// has replaced no longer is (see ``serverID(of:)``), until the entity the server made is
    /// deleted: its move goes with it, and the id is again one Depot made that names nothing
    /// (read, update, patch and delete by it fail `.notFound` without a request).
    ///
    /// - Throws: `DepotError` `.storage` when the store cannot be read.
    public func isTemporary(_ id: Entity.ID) async throws -> Bool {
        let (collection, text) = (self.collection, id.pathComponent)
        return try await storage.transaction { tx in try tx.isTemporaryID(collection: collection, id: text) }
    }
}
