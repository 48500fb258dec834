import Foundation

extension OutboxEngine {
    /// Whether `error` is a `409` to a resend of `entry` under its key: the entry was sent under
    /// that key before (its attempts count this send and an earlier one), so the server may be
    /// saying only that the first request under the key is still being processed. A `409` to a
    /// first send is a conflict.
    static func isResendConflict(_ entry: OutboxEntry, _ error: DepotError) -> Bool {
        error.status == 409 && entry.attempts > 1
    }

    /// The server's copy of `entry`'s entity when it shows `entry` applied (what a server that
    /// ignores idempotency keys answers a resend of a write it applied with); nil when it does not,
    /// or when the read fails or finds nothing (a temporary id the server never knew reads as
    /// nothing): the key may then still be in flight.
    func appliedCopy(of entry: OutboxEntry, channel: OutboxChannel) async throws -> OutboxChannel.Answer? {
        guard entry.operation != .delete,
            case .success(let server?) = try await channel.current(
                entityID: entry.entityID, timeout: configuration.requestTimeout),
            Self.isApplied(entry, on: server.json, fields: channel.fields)
        else { return nil }
        return server
    }

    /// Takes a `409` to a resend of `entry` under its key (``isResendConflict(_:_:)``) for "the
    /// key's first request is still being processed" while the key's window
    /// (``ForwarderConfiguration/keyInFlightWindow``) lasts: the entry waits for a retry under the
    /// same key, with backoff, and the server replays the first request's answer once it has one.
    /// The window is counted from the first such answer to the key, noted in the store (it holds
    /// across passes, senders and restarts). Returns the entry's wait, or nil once the window has
    /// passed: the `409` is a conflict for the repository's policy.
    func waitForKeyInFlight(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult?
    {
        let now = configuration.clock.now
        let since = try await storage.transaction { tx in try tx.noteKeyInFlight(entry, at: now) }
        guard now.timeIntervalSince(since) < configuration.keyInFlightSeconds else { return nil }
        return try await scheduleRetry(entry, error, &report)
    }
}

/// When each outbox entry's key was first answered "in flight" (a `409` to a resend under it):
/// one record of a collection of Depot's own, as ``OutboxBatch`` keeps the open batches, so the
/// window holds across restarts and senders on every storage without a schema of its own. Only
/// keys that met such an answer are noted; a note whose entry is gone, or sent under another key
/// since, is dropped the next time one is written.
struct KeyInFlightNote: Sendable, Hashable {
    static let collection = "__depot_keys_in_flight"
    static let recordID = "notes"
    /// The record that holds the notes.
    static let list = DepotListRecord(collection: collection, id: recordID, key: "notes")

    /// The entry's sequence.
    var sequence: Int64
    /// The key it was sent under.
    var key: String
    /// When a resend under the key was first answered 409, on the forwarder's clock.
    var since: Date

    var json: JSON {
        .object([
            "sequence": .integer(sequence), "key": .string(key), "since": .double(since.timeIntervalSince1970),
        ])
    }

    init(sequence: Int64, key: String, since: Date) {
        self.sequence = sequence
        self.key = key
        self.since = since
    }

    /// A note as stored; nil for a value that is not one.
    init?(json: JSON) {
        guard case .integer(let sequence)? = json["sequence"], case .string(let key)? = json["key"] else {
            return nil
        }
        let seconds: Double
        switch json["since"] {
        case .double(let value)?: seconds = value
        case .integer(let value)?: seconds = Double(value)
        default: return nil
        }
        self.init(sequence: sequence, key: key, since: Date(timeIntervalSince1970: seconds))
    }
}

extension StorageTransaction {
    /// Notes that a resend of `entry` under its key was answered "in flight" at `now`, unless
    /// noted before; returns when it was first noted. Notes of entries gone, or sent under
    /// another key since, are dropped.
    func noteKeyInFlight(_ entry: OutboxEntry, at now: Date) throws -> Date {
        let stored = try values(of: KeyInFlightNote.list)
        var notes: [KeyInFlightNote] = []
        for value in stored {
            guard let note = KeyInFlightNote(json: value), note.sequence != entry.sequence,
                try outboxEntry(sequence: note.sequence)?.idempotencyKey == note.key
            else { continue }
            notes.append(note)
        }
        let earlier = stored.lazy.compactMap(KeyInFlightNote.init(json:)).first {
            $0.sequence == entry.sequence && $0.key == entry.idempotencyKey
        }
        let note = earlier ?? KeyInFlightNote(sequence: entry.sequence, key: entry.idempotencyKey, since: now)
        notes.append(note)
        try store(notes.map(\.json), in: KeyInFlightNote.list)
        return note.since
    }
}
