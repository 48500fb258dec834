import Foundation

// A remote-first write's claim, taken in the transaction that records the write: from its commit
// on, no other sender (a forwarder of this storage, of another storage object on the same file,
// of another process or replica) can take the write's entry; only the write's own send does.

extension OutboxEngine {
    /// A remote-first write's entry and the claim that holds it, as the transaction that recorded
    /// the write (or a later one of the same claim) left them.
    struct NowClaim: Sendable {
        /// The claim: released by ``OutboxEngine/deliverNow(_:keeps:undo:)``.
        let claim: OutboxClaim
        /// Where the entry is, and its sequence.
        let collection: String
        let entityID: String
        let sequence: Int64
        /// Whether the claim holds the caller's entry (false only when its lease lapsed and
        /// another sender took it).
        var holdsCaller: Bool
        /// The entity's entries up to and with the caller's, in order, when the claim holds every
        /// one of them; empty when an earlier one is held by another sender, refused, or in an
        /// open batch (the claim then holds only the caller's entry).
        var chain: [OutboxEntry]
        /// The entity's record, read with the chain.
        var record: StoredRecord?
        /// The owners of the leases that hold earlier entries back.
        var holders: Set<String>
    }

    /// Runs `record` (a remote-first write's local write and outbox entry) in a transaction that
    /// also claims the entry it returns, with the entity's earlier entries when they are all
    /// free (see ``claimChain(_:claim:)``). Returns what `record` returned, and the claim: nil
    /// when `record` recorded no entry.
    ///
    /// `record` returns its result, the entity's id, and the sequence of the entry it recorded
    /// (made under its own `Idempotency-Key`, so never folded into an earlier entry: its one
    /// counted attempt is the send to come).
    func recordNow<Recorded: Sendable>(
        collection: String,
        _ record: @escaping @Sendable (any StorageTransaction) throws -> (Recorded, entityID: String, sequence: Int64?)
    ) async throws -> (Recorded, NowClaim?) {
        let (claim, _, extra) = try await OutboxClaim.take(in: storage, duration: configuration.leaseSeconds) {
            tx, lease, now -> ([OutboxEntry], (Recorded, Taken?, String)) in
            let (recorded, entityID, sequence) = try record(tx)
            guard let sequence else { return ([], (recorded, nil, entityID)) }
            let taken = try Self.claimChain(
                collection: collection, entityID: entityID, sequence: sequence, tx: tx, lease: lease, now: now)
            return (taken.held, (recorded, taken, entityID))
        }
        let (recorded, taken, entityID) = extra
        guard let taken else { return (recorded, nil) }
        return (
            recorded,
            NowClaim(
                claim: claim, collection: collection, entityID: entityID, sequence: taken.sequence,
                holdsCaller: taken.holdsCaller, chain: taken.chain, record: taken.record, holders: taken.holders)
        )
    }

    /// Claims again, under `now`'s claim, what the caller's write needs: its entry (still held,
    /// or taken again when its lease lapsed and no one took it) and the entity's earlier entries.
    static func claimChain(_ now: NowClaim, claim: OutboxClaim) async throws -> NowClaim {
        let (collection, entityID, sequence) = (now.collection, now.entityID, now.sequence)
        let (_, taken) = try await claim.extend { tx, lease, time in
            let taken = try claimChain(
                collection: collection, entityID: entityID, sequence: sequence, tx: tx, lease: lease, now: time)
            return (taken.held, taken)
        }
        var now = now
        (now.holdsCaller, now.chain, now.record, now.holders) =
            (taken.holdsCaller, taken.chain, taken.record, taken.holders)
        return now
    }

    /// What ``claimChain(collection:entityID:sequence:tx:lease:now:)`` took.
    struct Taken: Sendable {
        var sequence: Int64
        var holdsCaller = false
        var chain: [OutboxEntry] = []
        var record: StoredRecord?
        var holders: Set<String> = []
        /// The entries the lease now holds.
        var held: [OutboxEntry] = []
    }

    /// In `tx`: leases the caller's entry `sequence` to `lease` (unless another sender holds it),
    /// and claims the entity's earlier entries with it, all or none, in order, reading the
    /// entity's record. The caller's entry keeps its attempt count: the one its recording
    /// counted is the send to come. When an earlier entry cannot be claimed (held by another
    /// sender, refused, in an open batch), none is: the lease holds only the caller's entry, and
    /// the holders of the earlier entries are returned.
    static func claimChain(
        collection: String, entityID: String, sequence: Int64, tx: any StorageTransaction, lease: OutboxLease,
        now: Date
    ) throws -> Taken {
        var taken = Taken(sequence: sequence)
        let pending = try tx.outboxEntries(collection: collection, entityID: entityID).filter {
            $0.sequence <= sequence
        }
        guard var caller = pending.last, caller.sequence == sequence else { return taken }
        if caller.lease?.owner != lease.owner {
            guard caller.isClaimable(at: now) else {
                taken.holders = caller.lease.map { [$0.owner] } ?? []
                return taken
            }
        }
        caller.lease = lease
        try tx.replaceOutbox(caller)
        taken.holdsCaller = true
        taken.held = [caller]
        let earlier = pending.dropLast()
        guard earlier.allSatisfy({ $0.isClaimable(at: now) }) else {
            taken.holders = Set(earlier.compactMap { $0.lease?.isFree(at: now) == false ? $0.lease?.owner : nil })
            return taken
        }
        let chain =
            earlier.isEmpty
            ? [] : try tx.claimOutboxInOrder(sequences: earlier.map(\.sequence), lease: lease, now: now)
        guard chain.count == earlier.count else {
            // An open batch holds one of them: none goes with the caller's entry.
            for var entry in chain {
                entry.lease = nil
                entry.attempts = max(entry.attempts - 1, 0)
                try tx.replaceOutbox(entry)
            }
            return taken
        }
        taken.chain = chain + [caller]
        taken.held = taken.chain
        taken.record = try tx.fetch(collection: collection, id: entityID)
        return taken
    }
}
