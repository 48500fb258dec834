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
}
