import Foundation

extension CRUDNetworkingStorageRepository {
    /// Creates `entity` locally inside `transaction`, exactly as a local-first create does: the
    /// record stored `.created` and the create recorded in the outbox under a new idempotency
    /// key. It commits with whatever else the transaction writes (a transactional outbox; see
    /// `PostgresStorage.withTransaction(_:)`); a forwarder sends it after the commit.
    ///
    /// ```swift
    /// try await storage.transaction { tx in
    ///     try notes.create(Note(id: "1", text: "hi"), in: tx)
    /// }
    /// ```
    ///
    /// - Throws: `DepotError` `.conflict` when the id is taken, `.invalidRequest` for an empty
    ///   id, `.storage` when the store fails.
    @discardableResult
    public func create(_ entity: Entity, in transaction: any StorageTransaction) throws -> Entity {
        if let refusal = Self.refusingEmpty(entity.id.pathComponent) { throw refusal }
        return try outboxLocal.create([entity], in: transaction)[0]
    }

    /// Updates `entity` locally inside `transaction`, exactly as a local-first update does (the
    /// record unsynced, the whole object recorded in the outbox); see ``create(_:in:)``.
    ///
    /// - Returns: the entity as stored (under the server's id when the server replaced its id).
    /// - Throws: `DepotError` `.invalidRequest` for an empty id, `.storage` when the store fails.
    @discardableResult
    public func update(_ entity: Entity, in transaction: any StorageTransaction) throws -> Entity {
        if let refusal = Self.refusingEmpty(entity.id.pathComponent) { throw refusal }
        return try outboxLocal.update([entity], in: transaction)[0]
    }

    /// Deletes the entity with `id` locally inside `transaction`, exactly as a local-first delete
    /// does (gone if the server never saw it, else a tombstone and an outbox entry); see
    /// ``create(_:in:)``.
    ///
    /// - Throws: `DepotError` `.notFound` when there is no such entity, `.invalidRequest` for an
    ///   empty id, `.storage` when the store fails.
    public func delete(id: Entity.ID, in transaction: any StorageTransaction) throws {
        if let refusal = Self.refusingEmpty(id.pathComponent) { throw refusal }
        try outboxLocal.delete(ids: [id.pathComponent], in: transaction)
    }
}
