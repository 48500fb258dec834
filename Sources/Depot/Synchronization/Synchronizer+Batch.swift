import Foundation

extension Synchronizer {
    /// A batch claimed and opened: its claim, the records it sends as the claim's own transaction
    /// read them, and its identity (nil when no outbox entry stands for the records: no key).
    struct OpenedBatch: Sendable {
        var claim: Claim
        var records: [StoredRecord]
        var batch: OutboxBatch?
        /// Entities kept out of the batch: an entry of theirs was sent on its own before, under its
        /// key, and its answer is not known; they go again only as themselves.
        var singly: [String] = []
        /// The records whose id Depot made (the store's record of it): a bulk create leaves it out.
        var temporary: Set<String> = []
    }

    /// Sends one batch of the records of `all` still in one of `states` (a page of candidates);
    /// returns true (counting nothing) when `missingEnds` and the answer says the route does not
    /// exist.
    ///
    /// One transaction claims the entities' entries (an entity goes only with all of them: one
    /// held by another sender, refused, or in another open batch keeps it out), reads their
    /// records and opens the batch under its key (``OutboxBatch``); the request is built from
    /// those records, and the claim's leases are renewed while it is in flight.
    func pushBatch(
        _ all: [StoredRecord], to route: Route, states: Set<SyncState>, _ report: inout SynchronizationReport,
        missingEnds: Bool
    ) async throws -> Bool {
        let opened = try await openBatch(all.map(\.id), states: states, route: route)
        let missing = try await opened.claim.lease.releasing {
            guard !opened.records.isEmpty else { return false }
            return try await opened.claim.lease.renewing {
                try await sendBatch(opened, to: route, &report, missingEnds: missingEnds)
            }
        }
        if !missing { try await pushSingly(opened.singly, &report) }
        return missing
    }

    /// Sends the pending entries of each entity of `ids` on their own, in order, each under its
    /// key (the entity-by-entity road): entities an entry of which was sent on its own before,
    /// whose answer is not known, so a batch under another key could apply it twice.
    func pushSingly(_ ids: [String], _ report: inout SynchronizationReport) async throws {
        guard let channel, !ids.isEmpty else { return }
        let forwarding = OutboxCoordinator.configuration(of: storage) ?? ForwarderConfiguration()
        let engine = OutboxEngine(storage: storage, channels: [collection: channel], configuration: forwarding)
        for id in ids {
            try checkCancellation()
            if shouldStop() { return }
            let sent = try await engine.deliver(collection: collection, entityID: id)
            report.pushed += sent.delivered
            report.failed += sent.retrying + sent.rejected.count
            report.errors += sent.errors
        }
    }

    /// Sends again, each under its key, the batches of this collection whose answer is not
    /// known (a timeout, a lost connection, a 5xx), before anything else is pushed: their entries
    /// go nowhere else until then. A batch another sender holds now is left to it.
    func resendOpenBatches(_ report: inout SynchronizationReport) async throws {
        let collection = self.collection
        let open = try await storage.transaction { tx in
            try tx.openOutboxBatches().filter { $0.collection == collection }
        }
        for batch in open {
            try checkCancellation()
            if shouldStop() { return }
            let opened = try await reopen(batch)
            let route = Route(NetworkRequest.Method(rawValue: batch.method), batch.path)
            try await opened.claim.lease.releasing {
                guard !opened.records.isEmpty else { return }
                _ = try await opened.claim.lease.renewing {
                    try await sendBatch(opened, to: route, &report, missingEnds: false)
                }
            }
        }
    }

    /// The lease duration of the storage's forwarder, else the default.
    var leaseSeconds: TimeInterval {
        (OutboxCoordinator.configuration(of: storage) ?? ForwarderConfiguration()).leaseSeconds
    }

    /// Claims the entries of `ids` whose records are in one of `states`, reads those records and
    /// opens the batch, in one transaction.
    private func openBatch(_ ids: [String], states: Set<SyncState>, route: Route) async throws -> OpenedBatch {
        let collection = self.collection
        let bulk = configuration.pushMode == .bulkCollection
        let (method, path, channel) = (route.method.rawValue, route.path, self.channel)
        let (lease, taken, opened) = try await OutboxClaim.take(in: storage, duration: leaseSeconds) {
            tx, lease, now -> ([OutboxEntry], ([StoredRecord], OutboxBatch?, [String], Set<String>)) in
            var records: [StoredRecord] = []
            var pending: [String: [OutboxEntry]] = [:]
            var singly: [String] = []
            let batched = try tx.outboxBatchSequences(except: nil)
            for id in ids {
                guard let record = try tx.fetch(collection: collection, id: id), states.contains(record.syncState)
                else { continue }
                let entries = try tx.outboxEntries(collection: collection, entityID: id)
                if entries.contains(where: \.isRejected) { continue }
                // Another account's writes wait for it (``OutboxEntry/account``): never batched.
                if entries.contains(where: { channel?.isForAnotherAccount($0) == true }) { continue }
                // An id Depot made is never sent: a batch matched by id would give it to the
                // server, so the entity goes on its own (its create leaves the id out).
                if !bulk, try tx.isTemporaryID(collection: collection, id: id) {
                    singly.append(id)
                    continue
                }
                // It names an entity whose create is not delivered: it goes on its own road,
                // which holds it until that create's answer gives the server's id (or refuses it
                // when that create will never go).
                if try entries.contains(where: { try tx.referenceHold($0) != .goes }) {
                    singly.append(id)
                    continue
                }
                // Sent on its own before (an entry of an open batch is kept out by the claim):
                // it goes again only under its own key.
                if entries.contains(where: { $0.attempts > 0 }) {
                    if batched.isDisjoint(with: entries.map(\.sequence)) { singly.append(id) }
                    continue
                }
                // A version the app knows (a strong `ETag`, or one a batch's reply left unknown),
                // under conditional writes: a batch carries no precondition per entity, so the
                // entity goes on its own, under `If-Match`, and another client's change since
                // meets the conflict policy instead of being overwritten unseen.
                if !bulk, let channel, channel.configuration.conditionalWrites, let etag = record.etag,
                    ETag.isStrong(etag) || record.isVersionUnknown
                {
                    singly.append(id)
                    continue
                }
                records.append(record)
                pending[id] = entries
            }
            let wanted = records.flatMap { pending[$0.id] ?? [] }.map(\.sequence)
            let claimed = try tx.claimOutboxInOrder(sequences: wanted, lease: lease, now: now)
            let claimedSequences = Set(claimed.map(\.sequence))
            let whole = Set(
                records.map(\.id).filter { id in
                    (pending[id] ?? []).allSatisfy { claimedSequences.contains($0.sequence) }
                })
            var kept: [OutboxEntry] = []
            for entry in claimed {
                guard whole.contains(entry.entityID) else {
                    // Part of an entity another sender holds: given back.
                    var undone = entry
                    undone.lease = nil
                    undone.attempts = max(undone.attempts - 1, 0)
                    try tx.replaceOutbox(undone)
                    continue
                }
                kept.append(entry)
            }
            records = records.filter { whole.contains($0.id) }
            let batch = OutboxBatch.key(for: kept.map(\.idempotencyKey)).map { key in
                OutboxBatch(
                    key: key, collection: collection, method: method, path: path, sequences: kept.map(\.sequence),
                    objects: records.map { .object($0.object) })
            }
            if let batch { try tx.openOutboxBatch(batch) }
            let temporary = try tx.temporaryIDs(collection: collection, among: records.map(\.id))
            return (kept, (records, batch, singly, temporary))
        }
        return OpenedBatch(
            claim: Claim(lease: lease, entries: taken, batchKey: opened.1?.key), records: opened.0, batch: opened.1,
            singly: opened.2, temporary: opened.3)
    }

    /// Claims the entries of an open batch still there (all of them, or none: the batch is in
    /// flight with another sender) and reads their records, in one transaction; a batch with no
    /// entry left is closed. Each record goes with the object the batch sent first (the same
    /// request under the same key); a record changed since keeps its change when the answer is
    /// stored.
    private func reopen(_ batch: OutboxBatch) async throws -> OpenedBatch {
        let (collection, identityKey) = (self.collection, configuration.identityKey)
        let (lease, taken, (records, temporary)) = try await OutboxClaim.take(in: storage, duration: leaseSeconds) {
            tx, lease, now -> ([OutboxEntry], ([StoredRecord], Set<String>)) in
            let present = try batch.sequences.compactMap { try tx.outboxEntry(sequence: $0) }.filter { !$0.isRejected }
            guard !present.isEmpty else {
                try tx.closeOutboxBatch(key: batch.key)
                return ([], ([], []))
            }
            let claimed = try tx.claimOutboxInOrder(
                sequences: present.map(\.sequence), lease: lease, now: now, batch: batch.key)
            guard claimed.count == present.count else {
                for entry in claimed {
                    var undone = entry
                    undone.lease = nil
                    undone.attempts = max(undone.attempts - 1, 0)
                    try tx.replaceOutbox(undone)
                }
                return ([], ([], []))
            }
            var sent: [String: JSONObject] = [:]
            for case .object(let object) in batch.objects {
                if let id = MovedIDs.idText(object[identityKey]) { sent[id] = object }
            }
            var seen: Set<String> = []
            let records = try claimed.compactMap { entry -> StoredRecord? in
                guard seen.insert(entry.entityID).inserted,
                    var record = try tx.fetch(collection: collection, id: entry.entityID)
                else { return nil }
                record.object = sent[record.id] ?? record.object
                return record
            }
            return (claimed, (records, try tx.temporaryIDs(collection: collection, among: records.map(\.id))))
        }
        let opened = taken.isEmpty ? nil : batch
        return OpenedBatch(
            claim: Claim(lease: lease, entries: taken, batchKey: opened?.key), records: records, batch: opened,
            temporary: temporary)
    }

    /// Sends an opened batch and settles it: its answer stored, and the batch closed once its
    /// answer is known (a reply, or a refusal that proves nothing was applied); left open for a
    /// timeout, a lost connection or a 5xx, to go again under its key. A batch the transport says
    /// never left (``RequestNotSent``) is closed and its entries count as unsent. Counts the batch
    /// in ``SynchronizationReport/batches`` when its request may have reached the server.
    private func sendBatch(
        _ opened: OpenedBatch, to route: Route, _ report: inout SynchronizationReport, missingEnds: Bool
    ) async throws -> Bool {
        let records = opened.records
        var headers = self.headers
        if let key = opened.claim.idempotencyKey { headers["Idempotency-Key"] = key }
        let written = shape.write(
            .synchronize, .array(records.map { .object(batchBody($0, madeID: opened.temporary.contains($0.id))) }),
            id: nil)
        if let contentType = written.contentType { headers["Content-Type"] = contentType }
        let request: NetworkRequest
        do {
            request = try makeRequest(
                route.method, route.resolvedPath(id: nil), template: route.path, headers: headers,
                body: written.body)
        } catch let error as DepotError {
            try await close(opened, takingBackAttempts: true)  // never sent
            report.failed += records.count
            report.errors.append(error)
            return false
        }
        let elements: [JSON]
        let answer = try await send(request)
        switch answer.flatMap({ array(in: $0, of: request) }) {
        case .success(let answer):
            report.batches += 1
            elements = answer
        case .failure(let error):
            if missingEnds, BatchRouteAnswer.saysMissing(error) {
                // Never applied: the batch is closed and the attempts counted on its entries taken back.
                try await close(opened, takingBackAttempts: true)
                return true
            }
            if case .failure(let failure) = answer, failure.neverReachedServer {
                // Never sent (the transport says no byte could have reached the server): the batch
                // is closed and its entries are unsent again, free to absorb later writes.
                try await close(opened, takingBackAttempts: true)
            } else {
                report.batches += 1
                if Self.refusesWholeBatch(error) { try await close(opened, takingBackAttempts: false) }
            }
            report.failed += records.count
            report.errors.append(error)
            return false
        }
        var (merges, errors) =
            configuration.pushMode == .bulkCollection
            ? matchByPosition(elements, to: records, request: request) ?? match(elements, to: records, request: request)
            : match(elements, to: records, request: request)
        guard let changedMeanwhile = try await merge(&merges, claim: opened.claim, closing: opened.batch) else {
            // The lease lapsed and another sender took the entries: theirs to send and store.
            return false
        }
        report.pushed += merges.count - changedMeanwhile
        report.conflicts += changedMeanwhile
        report.failed += records.count - merges.count
        report.errors += errors
        return false
    }

    /// A record as a batch sends it: without the keys the server owns, except the key its reply is
    /// matched by (``SynchronizationConfiguration/identityKey``); an array to the collection
    /// (matched by position first) leaves out an id Depot made (`madeID`) too. A batch matched by
    /// id never holds such a record (it goes on its own).
    private func batchBody(_ record: StoredRecord, madeID: Bool) -> JSONObject {
        guard var repository = channel?.configuration else { return record.object }
        repository.serverOwnedKeys.remove(configuration.identityKey)
        let creating = configuration.pushMode == .bulkCollection && record.syncState == .created
        return repository.writeBody(record.object, creating: creating, temporaryID: madeID ? record.id : nil)
    }

    /// Whether `error` is the server's refusal of the whole batch (a 4xx but 408, 409, 425 and
    /// 429): nothing was applied, so its entries are free to go another way.
    static func refusesWholeBatch(_ error: DepotError) -> Bool {
        guard let status = error.status, (400..<500).contains(status) else { return false }
        return ![408, 409, 425, 429].contains(status) && error.code != .decoding
    }

    /// Closes the opened batch (its answer is known), taking back the attempt counted on each
    /// entry it still holds when `takingBackAttempts` (the server never saw it); nothing when the
    /// claim lost a lease meanwhile (the batch is another sender's now).
    private func close(_ opened: OpenedBatch, takingBackAttempts: Bool) async throws {
        guard let batch = opened.batch else { return }
        let sequences = opened.claim.lease.held
        try await storage.transaction { tx in
            guard try opened.claim.isHeld(in: tx) else { return }
            try tx.closeOutboxBatch(key: batch.key)
            guard takingBackAttempts else { return }
            for sequence in sequences {
                guard var entry = try tx.outboxEntry(sequence: sequence), entry.attempts > 0 else { continue }
                entry.attempts -= 1
                try tx.replaceOutbox(entry)
            }
        }
    }
}
