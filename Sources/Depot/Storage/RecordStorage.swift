import Foundation

/// The records of a store, one call at a time: what reads and plain writes need. Each call is
/// atomic on its own; use ``TransactionalStorage/transaction(_:)`` to read, decide and write
/// without a race.
///
/// - Throws: `DepotError` `.storage` when the store fails, `.conflict` when ``insert(_:)`` finds
///   the id taken.
public protocol RecordStorage: Sendable {
    /// Adds a record; throws `.conflict` if the collection already has its id.
    func insert(_ record: StoredRecord) async throws
    /// Adds or replaces every record, all in one transaction.
    func upsert(_ records: [StoredRecord]) async throws
    /// Adds or replaces every record, all in one transaction, from JSON text already written: the
    /// SQLite store binds it as it is. A default parses each record and calls `upsert(_:)`.
    func upsert(encoded records: [EncodedRecord]) async throws
    /// The record with `id`, or nil (records deleted locally included).
    func fetch(collection: String, id: String) async throws -> StoredRecord?
    /// The records matching `criteria`, in its order.
    func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord]
    /// Up to `limit` records of `collection` whose sync state is one of `states`, ordered by id
    /// (bytewise), only ids after `id` when given: walks unsynced (or synced) records in bounded
    /// pages. A default reads the whole collection; stores with an index on the state override it.
    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    /// Removes the record with `id`; returns whether there was one.
    @discardableResult
    func delete(collection: String, id: String) async throws -> Bool
    /// Removes every record of `collection`.
    func deleteAll(collection: String) async throws
}

extension RecordStorage {
    /// Adds or replaces one record.
    public func upsert(_ record: StoredRecord) async throws { try await upsert([record]) }

    /// Parses every record and stores them with `upsert(_:)`: what a store without its
    /// own encoded path does (``InMemoryStorage`` among them), so the records read back the same.
    public func upsert(encoded records: [EncodedRecord]) async throws {
        try await upsert(try records.map { try $0.decoded() })
    }
}
