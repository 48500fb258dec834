import Foundation

extension StorageTransaction {
    /// Records a local write in the outbox, folded into the entity's last entry by the coalescing
    /// rules (``OutboxEntry/coalescing(_:payload:)``); a refused entry is never folded into.
    /// Call it in the same transaction as the record write it describes.
    ///
    /// `idempotencyKey` is the key the entry is sent under; a new one when nil. Pass the key a
    /// direct send of the same write already used (a remote write that fell back), so a server
    /// that honours keys applies the write once even if it took the direct send. Such an entry
    /// counts as sent once (``OutboxEntry/attempts`` is 1): it is never folded into, nor folded
    /// into an earlier entry, because the server may already hold it under that key.
    ///
    /// `account` is the account the write is made under (``Networking/account``), recorded on the
    /// entry (``OutboxEntry/account``); a write never folds into an entry of another account.
    ///
    /// - Returns: the entry made or changed, or nil when the write cancelled the entity's pending
    ///   create (create+delete: nothing is left to send).
    @discardableResult
    public func recordOutbox(
        collection: String, entityID: String, operation: OutboxOperation, payload: JSON?,
        idempotencyKey: String? = nil, account: String? = nil
    ) throws -> OutboxEntry? {
        var entry = OutboxEntry(
            sequence: 0, collection: collection, entityID: entityID, operation: operation, payload: payload,
            idempotencyKey: idempotencyKey ?? UUID.randomV4().uuidString, attempts: idempotencyKey == nil ? 0 : 1,
            account: account)
        // An entity's first entry, the common case, is added in the same step that finds none.
        if idempotencyKey == nil {
            switch try appendOutboxIfFirst(entry) {
            case .appended(let sequence):
                entry.sequence = sequence
                return entry
            case .behind(let last)
            where try !last.isRejected && last.account == account && !writtenByOlderModel(last):
                switch last.coalescing(operation, payload: payload) {
                case .replace(let merged):
                    try replaceOutbox(merged)
                    return merged
                case .dropBoth:
                    try removeOutbox(sequence: last.sequence)
                    return nil
                case .append:
                    break
                }
            case .behind:
                break
            }
        }
        entry.sequence = try appendOutbox(entry)
        return entry
    }

    /// Whether `entry` was queued before a migration of its collection, which left it as the
    /// older model wrote it (``Migration/QueuedWrites/asWritten``): it is never folded with a
    /// later write, whose payload has the new model's shape.
    func writtenByOlderModel(_ entry: OutboxEntry) throws -> Bool {
        let versions = try fetch(collection: SchemaVersions.collection, id: entry.collection)
        guard let fence = SchemaVersions.asWrittenThrough(of: versions) else { return false }
        return entry.sequence <= fence
    }

    /// Adds one attempt to each entry of `sequences` still there and not refused (once, even if
    /// listed twice), and returns them as stored now, in the order given, reading and replacing
    /// one entry at a time.
    public func markOutboxAttempted(sequences: [Int64]) throws -> [OutboxEntry] {
        var marked: [OutboxEntry] = []
        var seen = Set<Int64>()
        for sequence in sequences where seen.insert(sequence).inserted {
            guard var entry = try outboxEntry(sequence: sequence), !entry.isRejected else { continue }
            entry.attempts += 1
            try replaceOutbox(entry)
            marked.append(entry)
        }
        return marked
    }

    /// Claims the claimable entries of `sequences` one by one (see the requirement).
    public func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry] {
        var claimed: [OutboxEntry] = []
        var seen = Set<Int64>()
        for sequence in sequences where seen.insert(sequence).inserted {
            guard var entry = try outboxEntry(sequence: sequence), entry.isClaimable(at: now) else { continue }
            entry.attempts += 1
            entry.lease = lease
            try replaceOutbox(entry)
            claimed.append(entry)
        }
        return claimed
    }

    /// The sequences of `sequences` leased by `owner`, reading the entries one by one.
    public func heldOutboxLeases(sequences: [Int64], owner: String) throws -> Set<Int64> {
        var held = Set<Int64>()
        for sequence in Set(sequences) where try outboxEntry(sequence: sequence)?.lease?.owner == owner {
            held.insert(sequence)
        }
        return held
    }

    /// The system clock: the store of one process has no other.
    public func leaseTime() throws -> Date { Date() }

    /// Clears `owner`'s lease on the entries of `sequences`, one by one.
    @discardableResult
    public func releaseOutbox(sequences: [Int64], owner: String) throws -> Int {
        var released = 0
        for sequence in Set(sequences) {
            guard var entry = try outboxEntry(sequence: sequence), entry.lease?.owner == owner else { continue }
            entry.lease = nil
            try replaceOutbox(entry)
            released += 1
        }
        return released
    }

    /// Moves the expiry of `owner`'s leases on `sequences` to `expiry`; returns the sequences
    /// `owner` still holds (a lease that lapsed and was taken by another sender is not renewed).
    public func renewOutboxLeases(sequences: [Int64], owner: String, expiry: Date) throws -> Set<Int64> {
        var held = Set<Int64>()
        for sequence in Set(sequences) {
            guard var entry = try outboxEntry(sequence: sequence), entry.lease?.owner == owner else { continue }
            entry.lease?.expiry = expiry
            try replaceOutbox(entry)
            held.insert(sequence)
        }
        return held
    }
}

/// How a write just recorded under its own key went into its entity's outbox
/// (``StorageTransaction/foldIntoUnsent(_:)``).
enum UnsentFold: Sendable, Hashable {
    /// It stays an entry of its own.
    case kept
    /// It folded into the entity's earlier entry with this sequence, which carries it now: that
    /// entry's answer is the write's answer.
    case into(sequence: Int64)
    /// It cancelled the earlier entry out (a create and a delete): nothing is left to send.
    case cancelled
}

extension StorageTransaction {
    /// Folds `entry` (just recorded under the key it is about to be sent with, not sent yet) into
    /// the entity's entry before it when that one was never attempted, not refused and not leased
    /// (nothing of it reached the server), by the coalescing rules a local write follows. Returns
    /// how it went: folded, `entry` is gone, and what is left to send is the earlier entry (its
    /// sequence recorded here, as the fact of which entry carries the write), or nothing (a
    /// create and a delete leave nothing, the tombstone included).
    func foldIntoUnsent(_ entry: OutboxEntry) throws -> UnsentFold {
        let chain = try outboxEntries(collection: entry.collection, entityID: entry.entityID)
        guard chain.count > 1, chain.last?.sequence == entry.sequence else { return .kept }
        let previous = chain[chain.count - 2]
        guard previous.attempts == 0, !previous.isRejected, previous.lease == nil, previous.account == entry.account,
            try !writtenByOlderModel(previous)
        else { return .kept }
        if case .append = previous.coalescing(entry.operation, payload: entry.payload) { return .kept }
        try removeOutbox(sequence: entry.sequence)
        let folded = try recordOutbox(
            collection: entry.collection, entityID: entry.entityID, operation: entry.operation, payload: entry.payload,
            account: entry.account)
        if folded == nil, let record = try fetch(collection: entry.collection, id: entry.entityID),
            record.syncState == .deleted
        {
            _ = try writeRecord(.localRemoval(collection: entry.collection, id: entry.entityID))
        }
        return folded.map { .into(sequence: $0.sequence) } ?? .cancelled
    }
}
