import Foundation

/// A ``StorageTransaction`` that can also list a whole collection and the outbox as it sees them:
/// what a migration needs to rewrite every record in the transaction that reads them, so no write
/// slips in between. ``InMemoryStorage`` and the SQLite store conform; on another store
/// `Storage.migrate(_:)` lists the collection just before its transaction instead.
public protocol ListingStorageTransaction: StorageTransaction {
    /// Every record of `collection` (tombstones included), as this transaction sees it, by id.
    func records(collection: String) throws -> [StoredRecord]
    /// The outbox entries `query` selects, as this transaction sees them, by sequence.
    func outbox(_ query: OutboxQuery) throws -> [OutboxEntry]
}
