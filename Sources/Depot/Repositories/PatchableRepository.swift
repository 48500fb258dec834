import Foundation

/// A ``CRUDNetworkingRepository`` that also sends `PATCH /path/:id` with only what changed: an
/// RFC 7396 JSON merge patch (`Content-Type: application/merge-patch+json`) from the entity as the
/// server last answered it to the entity now.
///
/// Every answer of create, read, readAll, update and patch is remembered in ``snapshots`` (the
/// server's JSON as it came, with its `ETag`); delete forgets it. With a strong `ETag` remembered,
/// update, patch and delete send `If-Match` (see ``RepositoryConfiguration/conditionalWrites``).
///
/// ```swift
/// struct Messages: PatchableRepository {
///     typealias Entity = Message
///     let store: Networking
///     let path = "messages"
///     let snapshots = SnapshotCache()
/// }
/// let m = try await messages.read("1").value      // remembered in `snapshots`
/// var edited = m; edited.text = "new"
/// let patched = try await messages.patch(edited).value           // PATCH /messages/1 {"text":"new"}
/// try await messages.patch(id: "1", ["tags": .null]).value       // a raw RFC 7396 merge patch
/// ```
public protocol PatchableRepository: CRUDNetworkingRepository {
    /// The server's last answer per entity id: what ``patch(_:)`` diffs against and where
    /// `If-Match` comes from. Keep one cache per repository value (a `let`), not a new one per call.
    var snapshots: SnapshotCache { get }
}

extension PatchableRepository {
    /// ``snapshots``: the CRUD calls refresh it.
    public var snapshotCache: SnapshotCache? { snapshots }

    /// `PATCH /path/:id` with what changed since the server's last answer for the entity.
    ///
    /// The merge patch is the difference between the remembered answer read as an `Entity` and
    /// written back (so keys the entity does not model are never touched) and the entity written
    /// now: changed and added keys, cleared attributes as `null`, nested objects diffed member by
    /// member, arrays replaced whole. With nothing changed no request is sent and the promise
    /// fulfils with `entity`. With no answer remembered (or one that no longer reads as an
    /// `Entity`) the patch is the entity's whole object.
    ///
    /// - Parameter entity: the entity as it is now.
    /// - Returns: the server's entity (or `entity` when the answer has no body).
    /// - Throws: (in the promise) `DepotError`: `.conflict` for a 412 to a stale `If-Match`, with
    ///   the server's body kept; the codes of any request otherwise.
    public func patch(_ entity: Entity) -> Promise<Entity> {
        let id = entity.id.pathComponent
        let snapshot = snapshots.snapshot(for: id)
        let patch: JSON?
        do {
            patch = try EntityMergePatch.patch(
                Entity.self, from: snapshot?.json, to: entity, coding: configuration.coding)
        } catch {
            return Promise(error: error)
        }
        guard let patch else { return Promise(entity) }
        return patchAnswer(id: id, patch: patch, base: snapshot?.json, sent: entity, ifMatch: ifMatch(snapshot?.etag))
            .map { $0?.entity ?? entity }
    }

    /// `PATCH /path/:id` with a raw RFC 7396 merge patch, e.g. `["tags": .null]` to remove `tags`.
    ///
    /// - Parameters:
    ///   - id: the entity's id.
    ///   - patch: the merge patch, sent as it is.
    /// - Returns: the server's entity; when the answer has no body, the remembered answer with the
    ///   patch applied, or, with none remembered, the entity read back with `GET /path/:id`.
    /// - Throws: (in the promise) `DepotError`, as ``patch(_:)``.
    public func patch(id: Entity.ID, _ patch: JSONObject) -> Promise<Entity> {
        let key = id.pathComponent
        let snapshot = snapshots.snapshot(for: key)
        return patchAnswer(
            id: key, patch: .object(patch), base: snapshot?.json, sent: nil, ifMatch: ifMatch(snapshot?.etag)
        )
        .then { answer in answer.map { Promise($0.entity) } ?? read(id) }
    }
}

/// The merge patch from an entity as the server last answered it to the entity now.
enum EntityMergePatch {
    /// The patch from `snapshot` (re-read as an `Entity` and written back) to `entity`; nil when
    /// nothing changed. Without a usable snapshot, the entity's whole object (nulls left out).
    static func patch<Entity>(
        _ type: Entity.Type, from snapshot: JSON?, to entity: Entity, coding: EntityCoding = .default
    ) throws -> JSON? {
        try patch(type, from: snapshot, to: try JSONMapping.object(entity, coding: coding), coding: coding)
    }

    /// The patch from `snapshot` (re-read as an `Entity` and written back) to `object`, an
    /// entity's object; nil when nothing changed.
    static func patch<Entity>(
        _ type: Entity.Type, from snapshot: JSON?, to object: JSONObject, coding: EntityCoding = .default
    ) throws -> JSON? {
        let new = JSON.object(object)
        if let snapshot,
            let old = try? JSONMapping.object(
                JSONMapping.entity(Entity.self, from: snapshot, coding: coding), coding: coding)
        {
            return JSON.mergePatch(from: .object(old), to: new)
        }
        return JSON.mergePatch(from: .object([:]), to: new) ?? new
    }
}
