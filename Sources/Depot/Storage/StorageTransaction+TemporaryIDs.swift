import Foundation

/// Where the ids Depot made are kept (``TemporaryID``): one synced record per id, in a collection
/// of Depot's own, written in the transaction of the local create that made it. Whether an id is
/// temporary is this fact, never its spelling: an app's own id `"local-news"` or `-5` is the
/// app's, and goes to the server as written.
enum TemporaryIDs {
    static let collection = "__depot_temporary_ids"

    /// The most retired ids (``retire(collection:id:)``) a process remembers; the one retired
    /// longest ago goes first.
    static let retiredCapacity = 65_536

    /// The ids Depot made whose entity is gone: the server gave it its own id, then its delete was
    /// answered (``StorageTransaction/forgetTemporaryMoves(collection:to:)``), and the move went
    /// with it; each with the id it had moved to and the fields naming it. Kept in the process,
    /// not in the store, so the store keeps nothing per create and delete; an app's handle naming
    /// such an id lives in the process too. Keyed by collection and id
    /// (``MovedIDs/key(collection:id:)``): a temporary id is random, so stores in one process do
    /// not meet in it. A transaction that rolls back after retiring an id leaves it retired while
    /// its move stays: every road follows a move before it asks whether an id is one Depot made,
    /// so the move still decides.
    private static let retired = LockedValue(LRUDictionary<String, Retired>(capacity: retiredCapacity))

    /// Where a retired id had moved: the gone entity's id, and the fields that named it.
    struct Retired: Sendable {
        var id: String
        var fields: JSONObject
    }

    /// Remembers that `id` of `collection`, an id Depot made, named the entity `to` (named by
    /// `fields`), which is gone.
    static func retire(collection: String, id: String, to target: String, fields: JSONObject) {
        let key = MovedIDs.key(collection: collection, id: id)
        retired.withLock { _ = $0.setValue(Retired(id: target, fields: fields), for: key) }
    }

    /// Where `id` of `collection` had moved, when it was retired (``retire(collection:id:to:fields:)``)
    /// and not made anew since; nil otherwise.
    static func retired(collection: String, id: String) -> Retired? {
        let key = MovedIDs.key(collection: collection, id: id)
        return retired.withLock { $0.peek(key) }
    }

    /// Forgets that `id` of `collection` was retired: the server gave a new entity under it its id.
    static func unretire(collection: String, id: String) {
        let key = MovedIDs.key(collection: collection, id: id)
        retired.withLock { _ = $0.removeValue(for: key) }
    }
}

extension StorageTransaction {
    /// Records that Depot made `id` of `collection` for a create whose id the server assigns.
    func recordTemporaryID(collection: String, id: String) throws {
        try upsert(
            StoredRecord(
                collection: TemporaryIDs.collection, id: MovedIDs.key(collection: collection, id: id), object: [:],
                syncState: .synced))
    }

    /// Whether Depot made `id` of `collection` (``recordTemporaryID(collection:id:)``) and the
    /// server has not replaced it yet, or its entity is gone since the server did
    /// (``TemporaryIDs/retired(collection:id:)``): either way no server knows it.
    func isTemporaryID(collection: String, id: String) throws -> Bool {
        if TemporaryIDs.retired(collection: collection, id: id) != nil { return true }
        return try fetch(collection: TemporaryIDs.collection, id: MovedIDs.key(collection: collection, id: id)) != nil
    }

    /// The ids of `ids` Depot made (see ``isTemporaryID(collection:id:)``).
    func temporaryIDs(collection: String, among ids: some Sequence<String>) throws -> Set<String> {
        var temporary: Set<String> = []
        for id in ids where try isTemporaryID(collection: collection, id: id) { temporary.insert(id) }
        return temporary
    }

    /// Forgets that `id` of `collection` is one Depot made: the server gave the entity its id.
    func forgetTemporaryID(collection: String, id: String) throws {
        _ = try delete(collection: TemporaryIDs.collection, id: MovedIDs.key(collection: collection, id: id))
        TemporaryIDs.unretire(collection: collection, id: id)
    }
}
