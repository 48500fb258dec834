import Foundation

extension OutboxEngine {
    /// Takes back the attempt counted on entries that were claimed but never sent (a pass stopped
    /// before them), so later writes may fold into them again; only on those still held under the
    /// lease they were claimed with.
    func unmarkAttempted(_ entries: some Sequence<OutboxEntry>) async throws {
        for (owner, claimed) in Dictionary(grouping: entries, by: { $0.lease?.owner ?? "" }) where !owner.isEmpty {
            try await storage.takeBackAttempts(claimed.map(\.sequence), owner: owner)
        }
    }

    /// Sends one claimed entry and settles it: stored answer, retry time, refusal or conflict. The
    /// entry is read again right before it goes (a write since the claim, such as the id the server
    /// gave the entity's create, goes with it), and the claim's leases are renewed while it is in
    /// flight. Returns the result and the entity's key as the entry was sent.
    ///
    /// `prefetched` is the entry and its record as the claim's own transaction read them, for the
    /// first entry a claim sends: nothing can have changed them since, so they are not read again;
    /// `madeID`, whether the entity's id is one Depot made, as that transaction read it.
    /// A delivered entry leaves the claim with its removal (no lease left to release).
    func process(
        _ claimed: OutboxEntry, claim: OutboxClaim, report: inout ForwardingReport,
        prefetched: (OutboxEntry, StoredRecord?)? = nil, madeID: Bool? = nil
    ) async throws -> (result: EntryResult, key: EntityKey) {
        guard let channel = channels[claimed.collection] else {
            let failure = DepotError(.invalidRequest, "no repository forwards \(claimed.collection)")
            let refused = try await reject(claimed, failure, &report)
            return (refused, EntityKey(claimed))
        }
        let current: (OutboxEntry, StoredRecord?)?
        var knownMadeID: Bool?
        if let prefetched, prefetched.0.sequence == claimed.sequence {
            (current, knownMadeID) = (prefetched, madeID)
        } else {
            let read = try await reread(claimed, references: !channel.configuration.references.isEmpty)
            if let read, case .refused(let parent) = read.hold {
                // It names an entity whose create will never go: held, it would wait for ever.
                let failure = ReferenceHold.refusal(of: read.entry.entityID, naming: parent)
                return (try await reject(read.entry, failure, &report), EntityKey(read.entry))
            }
            if let read, read.hold == .waits {
                // It names an entity whose create is not delivered: the server does not know its id.
                try await unmarkAttempted(CollectionOfOne(read.entry))
                return (.held, EntityKey(read.entry))
            }
            current = read.map { ($0.entry, $0.record) }
        }
        guard let (entry, record) = current else {
            // Gone (discarded by the app): nothing to send. Taken by another sender: theirs now.
            let gone = try await storage.transaction { tx in try tx.outboxEntry(sequence: claimed.sequence) == nil }

            return (gone ? .done : .lost, EntityKey(claimed))
        }
        if channel.isForAnotherAccount(entry) {
            // Another account signed in since the claim: not sent, and the attempt taken back.
            try await unmarkAttempted(CollectionOfOne(entry))
            hold(entry, report: &report)
            return (.otherAccount, EntityKey(entry))
        }
        let sender = channel.sending(for: entry)
        let meter = TrafficMeter()
        defer { meter.add(to: &report) }
        let (result, processed) = try await DepotTelemetry.withOptionalSpan("forward \(entry.collection)") { span in
            span?.attributes["depot.collection"] = entry.collection
            span?.attributes["depot.outbox.sequence"] = Int(entry.sequence)
            span?.attributes["depot.outbox.operation"] = entry.operation.rawValue
            let (result, processed) = try await TrafficMeter.$current.withValue(meter) {
                try await claim.renewing {
                    var processed = ForwardingReport()
                    processed.answerOf = report.answerOf
                    let result = try await send(
                        entry, record: record, channel: sender, madeID: knownMadeID,
                        report: &processed)
                    return (result, processed)
                }
            }
            span?.attributes["depot.outbox.outcome"] = "\(result)"
            return (result, processed)
        }
        report.add(processed)
        if case .done = result { claim.settled(entry.sequence) }
        return (result, EntityKey(entry))
    }

    /// The entry as stored now and its entity's record, in one read, and what its references
    /// decide (``StorageTransaction/referenceHold(_:)``, read only when its repository declares
    /// `references`: no other records them); nil when the entry is gone, refused, or no longer
    /// held under the lease it was claimed with.
    private func reread(_ claimed: OutboxEntry, references: Bool) async throws
        -> (entry: OutboxEntry, record: StoredRecord?, hold: ReferenceHold)?
    {
        try await storage.transaction { tx -> (OutboxEntry, StoredRecord?, ReferenceHold)? in
            guard let entry = try tx.outboxEntry(sequence: claimed.sequence), !entry.isRejected,
                Self.holds(entry, as: claimed)
            else { return nil }
            let hold = references ? try tx.referenceHold(entry) : .goes
            return (entry, try tx.fetch(collection: entry.collection, id: entry.entityID), hold)
        }
    }

    /// Sends `entry`; `madeID` is whether its id is one Depot made, when the caller's transaction
    /// read it (else read now, for a create).
    private func send(
        _ entry: OutboxEntry, record: StoredRecord?, channel: OutboxChannel, madeID: Bool?,
        report: inout ForwardingReport
    ) async throws -> EntryResult {
        let made: Bool
        if let madeID { made = madeID } else { made = try await self.madeID(entry) }
        let outcome = try await channel.send(
            entry.operation, entityID: entry.entityID, payload: entry.payload, idempotencyKey: entry.idempotencyKey,
            etag: record?.etag, base: record?.snapshot, timeout: configuration.requestTimeout, madeID: made)
        return try await settle(entry, outcome, channel: channel, report: &report, round: 0)
    }

    /// Whether `entry` is a create of an entity whose id Depot made (the store's record of it,
    /// ``StorageTransaction/recordTemporaryID(collection:id:)``): its body leaves the id out.
    func madeID(_ entry: OutboxEntry) async throws -> Bool {
        guard entry.operation == .create else { return false }
        return try await storage.transaction { tx in
            try tx.isTemporaryID(collection: entry.collection, id: entry.entityID)
        }
    }

    private func settle(
        _ entry: OutboxEntry, _ outcome: OutboxChannel.Outcome, channel: OutboxChannel,
        report: inout ForwardingReport, round: Int
    ) async throws -> EntryResult {
        switch outcome {
        case .delivered(let answer):
            return try await delivered(entry, answer, channel: channel, &report)
        case .retry(let error) where error.code == .otherAccount:
            return try await heldAtSend(entry, error, &report)
        case .retry(let error):
            return try await scheduleRetry(entry, error, &report)
        case .reject(let error):
            return try await reject(entry, error, &report)
        case .conflict(let error):
            // A 409 to a resend under the entry's key: its first request may still be being
            // processed, and within the window the same key goes again later.
            if round == 0, Self.isResendConflict(entry, error) {
                // A server that ignores keys answers a resend of a write it applied with 409: the
                // server's copy shows it, and the entry is delivered.
                if let applied = try await appliedCopy(of: entry, channel: channel) {
                    return try await delivered(entry, applied, channel: channel, &report)
                }
                if let waiting = try await waitForKeyInFlight(entry, error, &report) { return waiting }
            }
            return try await resolveConflict(entry, error, channel: channel, &report, round: round)
        }
    }

    func delivered(
        _ entry: OutboxEntry, _ answer: OutboxChannel.Answer?, channel: OutboxChannel, _ report: inout ForwardingReport
    ) async throws -> EntryResult {
        let decoded: (id: String, object: JSONObject)?
        do {
            decoded = try answer.map { try channel.decode(.object($0.json)) }
        } catch {
            var failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
            failure.message =
                "the server took the write but its answer is not a \(entry.collection) entity: " + failure.message
            return try await reject(entry, failure, &report)
        }
        guard try await storeAnswer(entry, answer, decoded) else { return .lost }
        if entry.sequence == report.answerOf { report.answer = .delivered(answer) }
        report.delivered += 1
        emit(.delivered(entry))
        return .done
    }

    func scheduleRetry(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult
    {
        let failures = entry.failures + 1
        let delay = configuration.delay(afterAttempt: failures, error: error)
        // A request that never left the process (a failed name lookup), or one the server answered
        // 401, cannot have been applied: the entry is as good as unsent, and later writes may fold
        // into it again. Any other failure may have reached the server: the attempt stands.
        let unsent = error.serverCannotHaveApplied
        // On a wall clock, the retry time is on the store's clock, read in the same transaction
        // (every replica judges it on that clock); the pass waits for it on this one.
        let onStoreClock = configuration.clock.isWallClock
        let clock = configuration.clock
        let (written, offset) = try await storage.transaction { tx -> (OutboxEntry?, TimeInterval) in
            let now = onStoreClock ? try tx.leaseTime() : clock.now
            let offset = onStoreClock ? now.timeIntervalSince(clock.now) : 0
            return (
                try Self.update(entry, in: tx) { waiting in
                    waiting.failures = failures
                    waiting.nextAttempt = now.addingTimeInterval(delay.seconds)
                    waiting.lastError = error.description
                    if unsent { waiting.attempts = max(0, waiting.attempts - 1) }
                }, offset
            )
        }
        guard let waiting = written, let due = waiting.nextAttempt else { return .lost }
        report.retrying += 1
        report.errors.append(error)
        emit(.retrying(waiting, error))
        return .waiting(due.addingTimeInterval(-offset))
    }

    /// The session refused to send `entry` under the credential in force (`.otherAccount`: another
    /// account signed in while it waited, for a token refresh say): held, with no retry time and
    /// no failure counted; its attempt taken back when no request of it left the process.
    private func heldAtSend(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult
    {
        let unsent = error.serverCannotHaveApplied
        let written = try await update(entry) { held in
            held.lastError = error.description
            if unsent { held.attempts = max(0, held.attempts - 1) }
        }
        guard let held = written else { return .lost }
        hold(held, report: &report)
        return .otherAccount
    }

    private func reject(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult
    {
        let rejection = OutboxRejection(
            status: error.status, body: error.responseBody ?? Data(), message: error.description)
        let written = try await update(entry) { refused in
            refused.lastError = error.description
            refused.rejection = rejection
        }
        guard let refused = written else { return .lost }
        report.rejected.append(refused)
        emit(.rejected(refused))
        // Gone from the server: the entity's writes queued behind this one can never follow it.
        if error.status == 404, entry.operation != .delete {
            let (behind, ended) = try await refuseBehind(refused)
            for entry in behind {
                report.rejected.append(entry)
                emit(.rejected(entry))
            }
            // The app's delete behind it ended the refused chain: a create after that delete
            // starts a new chain, which goes on as any entry does.
            if ended { return .done }
        }
        return .rejected
    }

    /// Changes the entry as stored now with `change`, if it is still there and still held under
    /// the lease `entry` was sent under; returns the entry changed (as written, or as sent when
    /// it is gone: discarded meanwhile), or nil when another sender holds it now (a send that
    /// lost its lease writes nothing).
    private func update(_ entry: OutboxEntry, _ change: @escaping @Sendable (inout OutboxEntry) -> Void)
        async throws -> OutboxEntry?
    {
        try await storage.transaction { tx -> OutboxEntry? in try Self.update(entry, in: tx, change) }
    }

    /// ``update(_:_:)`` in `tx`.
    private static func update(
        _ entry: OutboxEntry, in tx: any StorageTransaction, _ change: (inout OutboxEntry) -> Void
    ) throws -> OutboxEntry? {
        guard var stored = try tx.outboxEntry(sequence: entry.sequence) else {
            var gone = entry
            change(&gone)
            return gone
        }
        guard holds(stored, as: entry) else { return nil }
        change(&stored)
        try tx.replaceOutbox(stored)
        return stored
    }

    /// A 409/412: reads the server's version; a resend the server had already applied is
    /// delivered; otherwise the repository's conflict policy decides.
    private func resolveConflict(
        _ entry: OutboxEntry, _ error: DepotError, channel: OutboxChannel, _ report: inout ForwardingReport,
        round: Int
    ) async throws -> EntryResult {
        guard round < configuration.maximumConflictRounds else { return try await scheduleRetry(entry, error, &report) }
        let server: OutboxChannel.Answer?
        switch try await channel.current(entityID: entry.entityID, timeout: configuration.requestTimeout) {
        case .success(let answer): server = answer
        case .failure(let failure):
            // A failed read says nothing about the write: transport trouble, 5xx, and a 409/412
            // (which a read without preconditions cannot mean) wait for a retry; only a plain
            // refusal of the read (400, 403, …) refuses the write.
            switch OutboxChannel.classify(failure, operation: .update) {
            case .retry, .conflict: return try await scheduleRetry(entry, failure, &report)
            case .delivered, .reject: return try await reject(entry, failure, &report)
            }
        }
        if Self.isApplied(entry, on: server?.json, fields: channel.fields) {
            return try await delivered(entry, server, channel: channel, &report)
        }
        let local = try await storage.fetch(collection: entry.collection, id: entry.entityID)
        let resolution: ConflictResolution
        switch channel.conflictPolicy {
        case .serverWins: resolution = .serverWins
        case .clientWins: resolution = .clientWins
        case .custom(let decide):
            do {
                resolution = try await decide(
                    OutboxConflict(
                        entry: entry, status: error.status ?? 409,
                        local: local?.syncState == .deleted ? nil : local?.object, server: server?.json,
                        serverETag: server?.etag))
            } catch {
                let failure = DepotError(.conflict, "the conflict policy failed: \(error)", underlying: error)
                return try await reject(entry, failure, &report)
            }
        }
        report.conflicts += 1
        if case .serverWins = resolution {
            let decoded: (id: String, object: JSONObject)?
            do {
                decoded = try server.map { try channel.decode(.object($0.json)) }
            } catch {
                let failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                // The server's version wins all the same: one the app cannot read is kept in the
                // quarantine, as a pull keeps such a row, and the entity's later writes go on.
                guard let server, try await storeUnreadableAnswer(entry, server, failure) else { return .lost }
                emit(.conflict(entry, .serverWins))
                return .done
            }
            // No server copy: the server's side is "no such entity", and the write ends there. The
            // record goes with it (`.agreed`: nothing the app wrote waits behind the refused write),
            // so nothing re-queues the write under a new key: a refusal never loops.
            guard try await storeAnswer(entry, server, decoded, deleted: server == nil ? .agreed : .tombstone)
            else { return .lost }
            emit(.conflict(entry, .serverWins))
            return .done
        }
        // The local side wins: send again over the server's version, under a new key (the old one
        // is bound to the refused request), stored before the send.
        var again = entry
        again.idempotencyKey = UUID.randomV4().uuidString
        if case .merge(let object) = resolution {
            again.operation = .update
            again.payload = .object(object)
        }
        switch (again.operation, server) {
        case (.delete, nil):
            return try await delivered(entry, nil, channel: channel, &report)
        case (.update, nil), (.patch, nil):
            guard let local, local.syncState != .deleted else {
                return try await reject(entry, error, &report)
            }
            // Gone from the server: create it again, with the merged object or the local one.
            let merged: JSONObject? = if case .merge(let object) = resolution { object } else { nil }
            again.operation = .create
            again.payload = .object(merged ?? local.object)
        case (.create, _?):
            again.operation = .update
        default:
            break
        }
        let resent = again
        guard
            try await update(
                entry,
                { stored in
                    stored.idempotencyKey = resent.idempotencyKey
                    stored.operation = resent.operation
                    stored.payload = resent.payload
                }) != nil
        else { return .lost }
        emit(.conflict(entry, resolution))
        let outcome = try await channel.send(
            again.operation, entityID: again.entityID, payload: again.payload, idempotencyKey: again.idempotencyKey,
            etag: server?.etag, base: server?.json, timeout: configuration.requestTimeout,
            madeID: try await madeID(again))
        return try await settle(again, outcome, channel: channel, report: &report, round: round + 1)
    }

    /// Whether the server's version already holds what `entry` asked for: an earlier send of it
    /// (whose answer was lost) was applied. Only what a send of the entry carries is compared, on
    /// the server's copy as the entity models it (``WrittenFields``): the server's keys (a stamp,
    /// an id the server assigns) are never sent, so the server's values for them say nothing about
    /// the write, and `null` and absent are alike.
    static func isApplied(_ entry: OutboxEntry, on server: JSONObject?, fields: WrittenFields) -> Bool {
        func sent(_ object: JSONObject) -> JSONObject {
            RepositoryConfiguration.writeBody(
                object, serverOwnedKeys: fields.serverOwnedKeys, creating: entry.operation == .create,
                temporaryID: nil)
        }
        switch entry.operation {
        case .delete:
            return server == nil
        case .create, .update:
            guard let server, let payload = entry.payload?.objectValue else { return false }
            let copy = fields.modelled(server) ?? server
            return sent(payload).allSatisfy { key, value in (copy[key] ?? .null) == value }
        case .patch:
            guard let server, let patch = entry.payload else { return false }
            let body = patch.objectValue.map { JSON.object(sent($0)) } ?? patch
            return JSON.object(server).applyingMergePatch(body) == .object(server)
        }
    }

    /// Removes `entry` and stores the server's answer for its entity in one transaction, by the one
    /// rule (``StorageTransaction/storeServerAnswer(_:collection:sentID:sent:deleted:in:)``): a newer local change
    /// stays, a server-chosen id moves the record and the entity's later entries. Writes nothing
    /// when the entry is gone (discarded), and returns false when this sender no longer holds its
    /// lease (another sender took the entry: the answer is theirs to store).
    @discardableResult
    func storeAnswer(
        _ entry: OutboxEntry, _ answer: OutboxChannel.Answer?, _ decoded: (id: String, object: JSONObject)?,
        deleted: WriteAnswer.DeleteMark = .tombstone
    ) async throws -> Bool {
        let record = try decoded.map { decoded in
            try EncodedRecord.answer(
                collection: entry.collection, id: decoded.id, object: decoded.object, json: answer?.json,
                etag: answer?.etag)
        }
        let storage = self.storage
        return try await storage.storingAnswers { tx in
            // Discarded meanwhile: nothing to store. Taken by another sender: theirs to store.
            guard let stored = try tx.outboxEntry(sequence: entry.sequence) else { return true }
            guard Self.holds(stored, as: entry) else { return false }
            try tx.removeOutbox(sequence: stored.sequence)
            // A delete's own local change left a tombstone: a record that is not one was written
            // after it.
            try tx.storeServerAnswer(
                record, collection: stored.collection, sentID: stored.entityID, deleted: deleted, in: storage)
            return true
        }
    }

    /// Whether `stored` (an entry as the store holds it now) is still held by the lease `sent`
    /// was sent under: no other sender took it since.
    static func holds(_ stored: OutboxEntry, as sent: OutboxEntry) -> Bool {
        stored.lease?.owner == sent.lease?.owner
    }
}

extension DepotError {
    /// True when the request certainly never left the process, so the server cannot have applied
    /// it: only then does a failed send count as not attempted (attempts are facts: an entry once
    /// sent is never "unsent", and only never-attempted entries absorb later writes).
    ///
    /// Decided from what the transport recorded, never from an error code:
    /// - Held back behind earlier writes (`.queuedBehindEarlierWrites`): never sent.
    /// - A failure whose underlying error is ``RequestNotSent``: the transport knows no connection
    ///   the request could have gone out on was ever open (see ``NetworkingSession``), or the
    ///   request failed before its first attempt (an interceptor could not adapt it).
    /// - Anything else may have reached the server. A call retried by the pipeline counts as sent
    ///   when any attempt may have (its underlying error is then an ``AttemptedEarlier``).
    var neverReachedServer: Bool {
        if code == .queuedBehindEarlierWrites { return true }  // not sent: earlier writes go first
        // Not sent under another account's credential; an earlier attempt of the call may have
        // gone (a 401 before the switch): then the pipeline wrapped it as ``AttemptedEarlier``.
        if code == .otherAccount { return !(underlying is AttemptedEarlier) }
        return underlying is RequestNotSent
    }

    /// True when the server cannot have applied the request: it never reached the server
    /// (``neverReachedServer``), or the server answered it `401` (authentication comes before
    /// any processing) and no earlier attempt of the call may have been applied (the pipeline then
    /// wraps the failure in an ``AttemptedEarlier``). Only then is a failed send's attempt taken
    /// back, so the entry absorbs later writes as an unsent one does.
    var serverCannotHaveApplied: Bool {
        neverReachedServer || (status == 401 && !(underlying is AttemptedEarlier))
    }
}
