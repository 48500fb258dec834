import Foundation

extension CRUDNetworkingStorageRepository {
    /// Sends what changed in the entity as an RFC 7396 merge patch (`PATCH /path/:id`), under the
    /// ``RepositoryOperation/patch`` rule of ``strategy``.
    ///
    /// Remotely, the patch is the difference between the stored snapshot (the server's last JSON,
    /// read as an `Entity` and written back, so keys the entity does not model are never touched)
    /// and the entity; `If-Match` carries the stored strong `ETag`, and the server's answer is
    /// stored (its JSON as the new snapshot). Nothing changed: no request, the entity is stored as
    /// synced. A record the server has never seen (`.created`) is sent with `POST /path` instead.
    ///
    /// Locally (offline, or a local-first rule), the entity is stored `.updated` (`.created` if never
    /// synced) with the snapshot and `ETag` kept, so a later patch sends the same diff.
    ///
    /// ```swift
    /// var message = try await messages.read("1").value.value
    /// message.text = "edited"
    /// let answer = try await messages.patch(message).value   // PATCH /messages/1 {"text":"edited"}
    /// ```
    ///
    /// - Parameter entity: the entity as it is now.
    /// - Returns: the server's entity, or the stored one, with where it came from.
    /// - Throws: (in the promise) `DepotError`: `.conflict` for a 412 to a stale `If-Match`, the
    ///   server's body kept; otherwise the codes of the request or the store.
    public func patch(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, writes, remote, outbox) = (self.local, outboxLocal, self.remote, outboxEngineLater)
        let idempotencyKey = UUID.randomV4().uuidString
        if let now = sendingNow(
            .patch, entityID: entity.id.pathComponent, idempotencyKey: idempotencyKey,
            write: { writes, tx in try writes.update([entity], patch: true, idempotencyKey: idempotencyKey, in: tx)[0]
            },
            answer: { answer, recorded in try Self.answered(answer, coding: writes.coding) ?? recorded.value })
        {
            return now
        }
        return run(
            .patch,
            remote: {
                // The entity's earlier writes go first; an id the server replaced (by now, or by
                // their answers) is where the patch goes: it is built after they were delivered.
                try await Self.forwardEarlier(try await local.following(entity).id.pathComponent, outbox())
                let entity = try await local.following(entity)
                try await local.refuseMadeID(entity.id.pathComponent)
                return try await Self.sendPatch(entity, local: local, remote: remote, idempotencyKey: idempotencyKey)
            },
            local: { sentFirst in
                RemoteAnswer(
                    entity: try await writes.update(
                        entity, patch: true, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0) },
            afterLocal: { try await Self.forward($0.entity.id.pathComponent, outbox(), handingOff: true) },
            output: { $0.entity }
        )
    }

    /// Sends `entity` as a merge patch against its stored snapshot (or creates it when the server has
    /// never seen it); returns the server's answer, or the stored snapshot when nothing changed.
    static func sendPatch(
        _ entity: Entity, local: LocalStore<Entity>, remote: RemoteRepository<Entity>, idempotencyKey: String? = nil
    ) async throws -> RemoteAnswer<Entity> {
        let id = entity.id.pathComponent
        let record = try await local.record(id: id)
        if record?.syncState == .created {
            // A POST, not the PATCH the key was made for: a fallback's PATCH must not reuse its key.
            return try await sendCreated(entity, local: local, remote: remote)
        }
        let snapshot = record?.snapshot.map(JSON.object)
        guard let patch = try EntityMergePatch.patch(Entity.self, from: snapshot, to: entity, coding: local.coding)
        else {
            return RemoteAnswer(entity: entity, json: snapshot, etag: record?.etag)
        }
        let answer = try await remote.patchAnswer(
            id: id, patch: patch, base: snapshot, sent: entity,
            ifMatch: try await remote.ifMatch(record?.etag, id: id, base: snapshot), keepJSON: true,
            idempotencyKey: idempotencyKey
        ).value
        return answer ?? RemoteAnswer(entity: entity)
    }
}
