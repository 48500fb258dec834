import Foundation

/// Depot's own collections as a store that locks what a transaction touches (PostgreSQL) needs to
/// know them: which rows take no lock, which are read by many and written by few, and which
/// describe an entity of the app and take its lock. Named here, next to the key formats they
/// read, so a renamed collection or a changed key cannot silently break a store's locking.
package enum DepotRows {
    /// Depot's collections whose rows are written blind and read without deciding a write on
    /// them: a collection's list-cache token (every write of the collection replaces it with a
    /// new random one; whichever commits last, the lists cached before are stale). Locking them
    /// would make every write of a collection wait for every other.
    package static let unlockedCollections: Set<String> = [HTTPCache.generations]

    /// Depot's collections read by many transactions and written by few: the schema versions
    /// (read by local writes, written by a migration) and the open batches (read by every claim,
    /// written by a batch push). Their reads may share a lock; their writes hold it alone.
    package static let sharedReadCollections: Set<String> = [SchemaVersions.collection, OutboxBatch.collection]

    /// The record of the open batches (``OutboxBatch``): every claim reads it after claiming.
    package static let openBatches = (collection: OutboxBatch.collection, id: OutboxBatch.recordID)

    /// The entity a row of `collection` with `id` describes: for Depot's own rows of one entity
    /// (a moved id, a temporary id, a delivery mark, a quarantined row, a record's HTTP-cache entry), that
    /// entity, so an id move and a write under the old id meet on one lock; any other row is its
    /// own (a list page's cache entry, the delivery sequence, an app record).
    package static func entity(collection: String, id: String) -> (collection: String, id: String) {
        let entity: (collection: String, id: String)?
        switch collection {
        case MovedIDs.collection, MovedIDs.arrivals, TemporaryIDs.collection, DeliveryLog.collection,
            Quarantine.collection:
            entity = MovedIDs.entity(ofKey: Substring(id))
        case HTTPCache.collection:
            entity = HTTPCache.entity(ofRecordKey: id)
        default:
            entity = nil
        }
        return entity ?? (collection, id)
    }
}
