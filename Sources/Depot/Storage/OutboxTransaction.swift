import Foundation

/// The outbox side of a ``StorageTransaction``: entries appended, claimed, replaced and removed in
/// the same transaction as the records they describe.
public protocol OutboxTransaction {
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
    /// Moves the expiry of `owner`'s leases on `sequences` to `expiry`; returns the sequences
    /// `owner` still holds (a lease that lapsed and was taken by another sender is not renewed).
    /// A default reads and replaces the entries one by one; the SQLite and PostgreSQL stores run
    /// one `UPDATE … RETURNING`.
    func renewOutboxLeases(sequences: [Int64], owner: String, expiry: Date) throws -> Set<Int64>
    /// The sequences of `sequences` whose entries are still there and leased by `owner` (whether
    /// or not the lease has lapsed: no other sender took them since): the fencing check of every
    /// write a sender makes with what it sent. A default reads the entries one by one; the SQLite
    /// and PostgreSQL stores run one query.
    func heldOutboxLeases(sequences: [Int64], owner: String) throws -> Set<Int64>
    /// The store's time, read in this transaction: the one clock outbox leases are granted and
    /// judged on (``OutboxLease``), whichever sender asks. PostgreSQL reads the database's
    /// `clock_timestamp()`; SQLite reads the writer's clock made monotonic (never before the
    /// latest time it gave); the default (the in-memory store: one process) reads the system clock.
    /// Never a sender's own clock (`ForwarderConfiguration.clock`), so a replica whose clock runs
    /// fast does not take a live lease.
    func leaseTime() throws -> Date
    /// Adds `entry` at the end of the outbox when its entity has no entry yet (refused ones
    /// count), else adds nothing and returns the entity's last entry: the first step of
    /// ``StorageTransaction/recordOutbox(collection:entityID:operation:payload:idempotencyKey:account:)``,
    /// whose common case (an entity's first write) is then one statement. A default reads the entity's entries,
    /// then appends; the SQL stores run one statement.
    func appendOutboxIfFirst(_ entry: OutboxEntry) throws -> OutboxAppend
    /// Frees every lease whose owner the store knows has ended (its process died: a SQLite file's
    /// owner lock is free; on PostgreSQL, its session is gone), whatever its expiry, and returns
    /// how many entries it freed. Their attempts stand. The default (a store in one process's
    /// memory, whose owners all live in it) frees nothing; expiry stays the rule for a hung owner.
    func releaseLeasesOfEndedOwners() throws -> Int
}

extension OutboxTransaction {
    /// Nothing: every owner of a lease in this store lives in this process.
    public func releaseLeasesOfEndedOwners() throws -> Int { 0 }

    /// Reads the entity's entries; appends `entry` when there is none.
    public func appendOutboxIfFirst(_ entry: OutboxEntry) throws -> OutboxAppend {
        if let last = try outboxEntries(collection: entry.collection, entityID: entry.entityID).last {
            return .behind(last)
        }
        return .appended(sequence: try appendOutbox(entry))
    }
}
