import Foundation

/// What a ``Storage/transaction(_:)`` body works on: reads and writes that commit together, or not
/// at all if the body throws. No other write to the store interleaves with them, so a body can read
/// a record, decide, and write without a race.
///
/// ```swift
/// try await storage.transaction { tx in
///     guard var record = try tx.fetch(collection: "messages", id: "1") else { return }
///     record.syncState = .updated
///     try tx.upsert(record)
/// }.value
/// ```
public protocol StorageTransaction {
    /// The record with `id`, as this transaction sees it (its own writes included), or nil.
    func fetch(collection: String, id: String) throws -> StoredRecord?
    /// Adds or replaces `record`.
    func upsert(_ record: StoredRecord) throws
    /// Adds or replaces `record`, from JSON text already written. A default parses it and calls
    /// ``upsert(_:)``.
    func upsert(encoded record: EncodedRecord) throws
    /// Removes the record with `id`; returns whether there was one.
    @discardableResult
    func delete(collection: String, id: String) throws -> Bool

    /// The outbox entries of one entity (rejected ones included), oldest first.
    func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry]
    /// The outbox entry with `sequence`, or nil.
    func outboxEntry(sequence: Int64) throws -> OutboxEntry?
    /// Adds `entry` at the end of the outbox: its ``OutboxEntry/sequence`` is ignored and a new
    /// one, above every sequence the store ever gave, is returned.
    @discardableResult
    func appendOutbox(_ entry: OutboxEntry) throws -> Int64
    /// Replaces the outbox entry with the same sequence; returns whether there was one.
    @discardableResult
    func replaceOutbox(_ entry: OutboxEntry) throws -> Bool
    /// Removes the outbox entry with `sequence`; returns whether there was one.
    @discardableResult
    func removeOutbox(sequence: Int64) throws -> Bool
    /// Counts one more attempt on each entry of `sequences` still there and not refused (once
    /// each, even if listed twice), and returns those entries as stored now, in the order of
    /// `sequences`: a sender's claim before it sends them. A default reads and replaces them one
    /// by one; the SQLite store runs one `UPDATE … RETURNING`.
    func markOutboxAttempted(sequences: [Int64]) throws -> [OutboxEntry]
    /// Claims for `lease` every entry of `sequences` that is still there, not refused and not held
    /// by a live lease at `now` (``OutboxEntry/isClaimable(at:)``): sets its lease and counts one
    /// more attempt. Returns the claimed entries as stored now, in the order of `sequences` (once
    /// each). Because the lease is stored, two senders on one store — two storage objects on one
    /// file, two processes — never hold one entry at once. A default reads and replaces the
    /// entries one by one; the SQLite store runs one `UPDATE … RETURNING`.
    func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry]
    /// Clears the lease of every entry of `sequences` that `owner` holds; returns how many.
    @discardableResult
    func releaseOutbox(sequences: [Int64], owner: String) throws -> Int
    /// The sync state of each record of `ids` in `collection` that exists (ids with no record are
    /// left out): what a pull needs to know before it merges a page. A default fetches the records
    /// one by one; the SQLite store reads them with one `WHERE id IN (…)` query per 500 ids.
    func syncStates(collection: String, ids: [String]) throws -> [String: SyncState]
}

extension StorageTransaction {
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
