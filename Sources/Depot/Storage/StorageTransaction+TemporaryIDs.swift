import Foundation

/// Where the ids Depot made are kept (``TemporaryID``): one synced record per id, in a collection
/// of Depot's own, written in the transaction of the local create that made it. Whether an id is
/// temporary is this fact, never its spelling: an app's own id `"local-news"` or `-5` is the
/// app's, and goes to the server as written.
enum TemporaryIDs {
    static let collection = "__depot_temporary_ids"
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
    /// server has not replaced it yet.
    func isTemporaryID(collection: String, id: String) throws -> Bool {
        try fetch(collection: TemporaryIDs.collection, id: MovedIDs.key(collection: collection, id: id)) != nil
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
    }
}
