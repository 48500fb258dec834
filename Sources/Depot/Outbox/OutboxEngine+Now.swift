import Foundation

// A remote-first write's send: the entry its own transaction recorded, delivered now by the same
// claim, lease and fenced write-back as any entry, behind the entity's earlier entries.

extension OutboxEngine {
    /// How a write sent now ended, for the caller who made it.
    enum NowOutcome: Sendable {
        /// Delivered, its answer stored (fenced) with the entry's removal; nil for a delete.
        case delivered(OutboxChannel.Answer?)
        /// Not delivered, and left in the outbox for a later send: the earlier entries were held
        /// back, or the send failed in a way the caller keeps (offline, a timeout).
        case kept(DepotError)
        /// Refused (4xx, 409/412) or failed in a way the caller does not keep: the entry was
        /// removed and the local write taken back in one transaction.
        case undone(DepotError)
        /// The server took the write but its answer cannot be read: the entry is refused, kept
        /// for the app to retry or discard, as the forwarder keeps such an entry.
        case refused(DepotError)
    }

    /// Delivers the write the recording transaction of `now` recorded and claimed (see
    /// ``recordNow(collection:_:)``), behind the entity's earlier entries, and returns how it
    /// ended. Earlier entries are sent and settled as a forwarder pass settles them; the caller's
    /// entry is read again inside the claim (an id moved by an earlier answer goes with it) and
    /// sent with the session's own timeout, its answer stored only while the claim still holds
    /// its lease. A 409/412 to it runs no conflict policy: it is the caller's error.
    ///
    /// When earlier entries are held by another sender of this process (another remote-first
    /// write, a forwarder pass), the write waits for that sender (its own lease renewed
    /// meanwhile), then claims them. When the caller's entry is not delivered, `keeps` decides:
    /// true leaves it queued (an attempt that never left the process taken back), false removes
    /// it and runs `undo` (the local write taken back) in one transaction, only while no other
    /// sender holds the entry. The claim is released when this returns or throws.
    func deliverNow(
        _ now: NowClaim, keeps: @escaping @Sendable (DepotError) -> Bool,
        undo: @escaping @Sendable (any StorageTransaction) throws -> Void
    ) async throws -> NowOutcome {
        let (claim, sequence) = (now.claim, now.sequence)
        return try await claim.releasing {
            var now = now
            var rounds = 0
            // Held by a sender of this process: the write waits for it, as one entity's writes
            // wait for each other, holding its own entry meanwhile.
            while now.chain.isEmpty, now.holdsCaller, !now.holders.isEmpty, rounds < 8 {
                rounds += 1
                let holders = now.holders
                let waited = try await claim.renewing {
                    await OutboxClaim.waitForEnd(of: holders, atMost: .seconds(configuration.leaseSeconds))
                }
                guard waited else { break }
                now = try await Self.claimChain(now, claim: claim)
            }
            guard now.holdsCaller else {
                return .kept(
                    DepotError(.queuedBehindEarlierWrites, "another sender holds the write to \(now.entityID)"))
            }
            return try await deliverNow(
                claim: claim, taken: now.chain, record: now.record, entityID: now.entityID, sequence: sequence,
                keeps: keeps, undo: undo)
        }
    }

    /// Sends the entries `claim` took, in order, up to the caller's entry `sequence`, and settles
    /// the caller's entry.
    private func deliverNow(
        claim: OutboxClaim, taken: [OutboxEntry], record: StoredRecord?, entityID: String, sequence: Int64,
        keeps: @escaping @Sendable (DepotError) -> Bool,
        undo: @escaping @Sendable (any StorageTransaction) throws -> Void
    ) async throws -> NowOutcome {
        guard taken.contains(where: { $0.sequence == sequence }) else {
            // Behind entries another sender holds, or behind a refused entry: that sender, or the
            // app, first.
            return try await heldBack(
                sequence, entityID: entityID, claim: claim, report: ForwardingReport(), keeps: keeps, undo: undo)
        }
        var report = ForwardingReport()
        var unsent = taken[...]
        var prefetched: (OutboxEntry, StoredRecord?)? = taken.first.map { ($0, record) }
        while let entry = unsent.popFirst() {
            guard try await claim.holds(entry.sequence) else { break }
            if entry.sequence == sequence {
                return try await sendCaller(entry, prefetched: prefetched, claim: claim, keeps: keeps, undo: undo)
            }
            let (result, _) = try await process(entry, claim: claim, report: &report, prefetched: prefetched)
            prefetched = nil
            guard case .done = result else { break }
        }
        // An earlier entry did not go through: the caller's waits behind it.
        let rest = unsent.filter { $0.sequence != sequence }
        try await unmarkAttempted(rest)
        return try await heldBack(
            sequence, entityID: entityID, claim: claim, report: report, keeps: keeps, undo: undo)
    }

    /// The caller's entry could not go (an earlier entry of its entity did not): `.notFound` when
    /// one was refused with a 404 (the entity is gone from the server), else
    /// `.queuedBehindEarlierWrites`; kept or undone as `keeps` says. `entityID` is the entity's id
    /// as the caller wrote it (the entry, when still there, says where it is now).
    private func heldBack(
        _ sequence: Int64, entityID: String, claim: OutboxClaim, report: ForwardingReport,
        keeps: @Sendable (DepotError) -> Bool,
        undo: @escaping @Sendable (any StorageTransaction) throws -> Void
    ) async throws -> NowOutcome {
        // The entry as stored now (an earlier answer may have moved its entity's id) and the
        // entity's entries before it, in one read; none when the entry is gone.
        let (current, earlier) = try await storage.transaction { tx -> (String, [OutboxEntry]) in
            guard let entry = try tx.outboxEntry(sequence: sequence) else { return (entityID, []) }
            let entries = try tx.outboxEntries(collection: entry.collection, entityID: entry.entityID)
            return (entry.entityID, entries.filter { $0.sequence < sequence })
        }
        let error: DepotError
        if let gone = earlier.lazy.compactMap(\.rejection).first(where: { $0.status == 404 }) {
            error = gone.error(prefix: "\(current) is gone from the server (an earlier write to it was refused): ")
        } else {
            error = DepotError(
                .queuedBehindEarlierWrites,
                "\(earlier.count) earlier write(s) to \(current) wait in the outbox; this one goes behind them",
                underlying: report.errors.first ?? report.rejected.first?.rejection?.error())
        }
        if error.code != .notFound, keeps(error) {
            try await takeBack(sequence, claim: claim)
            return .kept(error)
        }
        return try await remove(sequence, claim: claim, undo: undo) ? .undone(error) : .kept(error)
    }

    /// Sends the caller's claimed entry and settles it for the caller.
    private func sendCaller(
        _ claimed: OutboxEntry, prefetched: (OutboxEntry, StoredRecord?)?, claim: OutboxClaim,
        keeps: @Sendable (DepotError) -> Bool, undo: @escaping @Sendable (any StorageTransaction) throws -> Void
    ) async throws -> NowOutcome {
        let current: (OutboxEntry, StoredRecord?)?
        if let prefetched, prefetched.0.sequence == claimed.sequence {
            current = prefetched
        } else {
            current = try await storage.transaction { tx -> (OutboxEntry, StoredRecord?)? in
                guard let entry = try tx.outboxEntry(sequence: claimed.sequence), !entry.isRejected,
                    Self.holds(entry, as: claimed)
                else { return nil }
                return (entry, try tx.fetch(collection: entry.collection, id: entry.entityID))
            }
        }
        guard let (entry, record) = current else {
            return .kept(
                DepotError(.queuedBehindEarlierWrites, "another sender holds the write to \(claimed.entityID)"))
        }
        guard let channel = channels[entry.collection]?.sending(for: entry) else {
            let failure = DepotError(.invalidRequest, "no repository forwards \(entry.collection)")
            return try await remove(entry.sequence, claim: claim, undo: undo) ? .undone(failure) : .kept(failure)
        }
        // (Only a repository that declares references records them: no read for any other.)
        let hold =
            channel.configuration.references.isEmpty
            ? .goes : try await storage.transaction { tx in try tx.referenceHold(entry) }
        if case .refused(let parent) = hold {
            // It names an entity whose create will never go: it never will either, so it is taken
            // back now with the error, as every road refuses it.
            let error = ReferenceHold.refusal(of: entry.entityID, naming: parent)
            return try await remove(entry.sequence, claim: claim, undo: undo) ? .undone(error) : .kept(error)
        }
        if hold == .waits {
            // It names an entity whose create waits in the outbox: the server does not know its id.
            let error = DepotError(
                .queuedBehindEarlierWrites,
                "\(entry.entityID) names an entity created offline; the write goes once that create is delivered")
            if keeps(error) {
                try await takeBack(entry.sequence, claim: claim)
                return .kept(error)
            }
            return try await remove(entry.sequence, claim: claim, undo: undo) ? .undone(error) : .kept(error)
        }
        let outcome: OutboxChannel.Outcome
        if channel.isForAnotherAccount(entry) {
            // Another account signed in since the write was recorded: it is not sent as that one.
            outcome = .retry(
                DepotError(
                    .otherAccount,
                    "the write was made as account \(entry.account ?? "") and another account is signed in now"))
        } else {
            outcome = try await claim.renewing {
                // The session's own timeout, as a direct write has: the caller waits for this answer.
                try await channel.send(
                    entry.operation, entityID: entry.entityID, payload: entry.payload,
                    idempotencyKey: entry.idempotencyKey, etag: record?.etag, base: record?.snapshot, timeout: nil,
                    madeID: try await madeID(entry))
            }
        }
        switch outcome {
        case .delivered(let answer):
            var report = ForwardingReport()
            switch try await delivered(entry, answer, channel: channel, &report) {
            case .done:
                claim.settled(entry.sequence)
                return .delivered(answer)
            case .rejected:
                let failure =
                    report.rejected.first?.rejection?.error() ?? DepotError(.decoding, "the answer cannot be read")
                return .refused(failure)
            case .waiting, .lost, .held, .otherAccount:
                return .kept(
                    DepotError(.queuedBehindEarlierWrites, "another sender took the write to \(entry.entityID)"))
            }
        case .retry(let error):
            if keeps(error) {
                if error.serverCannotHaveApplied { try await takeBack(entry.sequence, claim: claim) }
                return .kept(error)
            }
            return try await remove(entry.sequence, claim: claim, undo: undo) ? .undone(error) : .kept(error)
        case .conflict(let error), .reject(let error):
            return try await remove(entry.sequence, claim: claim, undo: undo) ? .undone(error) : .kept(error)
        }
    }

    /// Takes back the attempt on the caller's entry (it never reached the server), while the claim
    /// holds it or no sender does. Never sent, the entry is a local write like any other: when it
    /// is its entity's last, it folds into the entry before it by the coalescing rules (a create
    /// and a delete of it leave nothing, the tombstone included).
    private func takeBack(_ sequence: Int64, claim: OutboxClaim) async throws {
        let owner = claim.owner
        try await storage.transaction { tx in
            guard var entry = try tx.outboxEntry(sequence: sequence), entry.attempts > 0 else { return }
            let now = try tx.leaseTime()
            guard entry.lease?.owner == owner || entry.lease?.isFree(at: now) ?? true else { return }
            entry.attempts -= 1
            let entity = try tx.outboxEntries(collection: entry.collection, entityID: entry.entityID)
            guard entry.attempts == 0, entity.last?.sequence == entry.sequence, entity.count > 1 else {
                try tx.replaceOutbox(entry)
                return
            }
            try tx.removeOutbox(sequence: entry.sequence)
            let folded = try tx.recordOutbox(
                collection: entry.collection, entityID: entry.entityID, operation: entry.operation,
                payload: entry.payload, account: entry.account)
            if folded == nil, let record = try tx.fetch(collection: entry.collection, id: entry.entityID),
                record.syncState == .deleted
            {
                _ = try tx.writeRecord(.localRemoval(collection: entry.collection, id: entry.entityID))
            }
        }
    }

    /// Removes the caller's entry and takes its local write back (`undo`) in one transaction, while
    /// the claim holds it or no sender does; false when another sender holds it (it goes on).
    private func remove(
        _ sequence: Int64, claim: OutboxClaim, undo: @escaping @Sendable (any StorageTransaction) throws -> Void
    ) async throws -> Bool {
        let owner = claim.owner
        let removed = try await storage.transaction { tx -> Bool in
            guard let entry = try tx.outboxEntry(sequence: sequence) else { return true }
            let now = try tx.leaseTime()
            guard entry.lease?.owner == owner || entry.lease?.isFree(at: now) ?? true else {
                return false
            }
            try tx.removeOutbox(sequence: sequence)
            try undo(tx)
            return true
        }
        if removed { claim.settled(sequence) }
        return removed
    }
}
