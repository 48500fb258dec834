import Foundation

/// The records side of a ``StorageTransaction``: reads that see the transaction's own writes, and
/// writes that commit with it.
public protocol RecordTransaction {
    /// The record with `id`, as this transaction sees it (its own writes included), or nil.
    func fetch(collection: String, id: String) throws -> StoredRecord?
    /// Adds or replaces `record`.
    func upsert(_ record: StoredRecord) throws
    /// Adds or replaces `record`, from JSON text already written. A default parses it and calls
    /// ``upsert(_:)``.
    func upsert(encoded record: EncodedRecord) throws
    /// Adds or replaces each of `records` in order (a later one with the id of an earlier one
    /// replaces it), from JSON text already written: how a pull stores the new records of a page.
    /// A default calls ``upsert(encoded:)`` for each; the SQLite store writes many rows per
    /// statement.
    func upsert(encodedRecords records: [EncodedRecord]) throws
    /// Removes the record with `id`; returns whether there was one.
    @discardableResult
    func delete(collection: String, id: String) throws -> Bool
    /// The sync state of each record of `ids` in `collection` that exists (ids with no record are
    /// left out): what a pull needs to know before it merges a page. A default fetches the records
    /// one by one; the SQLite store reads them with one `WHERE id IN (…)` query per 500 ids.
    func syncStates(collection: String, ids: [String]) throws -> [String: SyncState]
}

extension RecordTransaction {
    /// Fetches each record of `ids` and returns its sync state.
    public func syncStates(collection: String, ids: [String]) throws -> [String: SyncState] {
        var states: [String: SyncState] = [:]
        for id in ids { if let record = try fetch(collection: collection, id: id) { states[id] = record.syncState } }
        return states
    }

    /// Parses `record` and stores it with ``upsert(_:)``.
    public func upsert(encoded record: EncodedRecord) throws {
        try upsert(record.decoded())
    }

    /// Stores each of `records` with ``upsert(encoded:)``, in order.
    public func upsert(encodedRecords records: [EncodedRecord]) throws {
        for record in records { try upsert(encoded: record) }
    }

    /// Adds `record`.
    ///
    /// - Throws: `DepotError` `.conflict` if the collection already has its id.
    public func insert(_ record: StoredRecord) throws {
        if try fetch(collection: record.collection, id: record.id) != nil {
            throw DepotError(.conflict, "\(record.collection) already has a record with id \(record.id)")
        }
        try upsert(record)
    }
}
