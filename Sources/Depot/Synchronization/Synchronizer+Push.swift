import Foundation

extension Synchronizer {
    /// A reply object matched to the record that was sent.
    struct Merge: Sendable {
        var sent: StoredRecord
        var id: String
        var object: JSONObject
        var snapshot: JSONObject
    }

    /// Sends local changes as ``SynchronizationConfiguration/pushMode`` says.
    func push(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        // A sender that died holds no lease: its entries go in this push, not when leases lapse.
        _ = try await storage.transaction { tx in try tx.releaseLeasesOfEndedOwners() }
        // A batch whose answer is not known goes again first, under its key, whatever the mode.
        try await resendOpenBatches(&report)
        switch configuration.pushMode {
        case .each:
            try await pushEach(&report, progress: progress)
        case .batch(let route):
            _ = try await pushChanges(&report, to: route, states: [.created, .updated], progress: progress)
            try await pushDeletes(&report, progress: progress)
        case .bulkCollection:
            _ = try await pushChanges(&report, to: createRoute, states: [.created], progress: progress)
            try await pushEach(&report, progress: progress)
        case .automatic:
            let memory = store.routeMemory
            var missing = memory?.isMissingBatchRoute(batchRoute) ?? false
            if !missing {
                missing = try await pushChanges(
                    &report, to: batchRoute, states: [.created, .updated], progress: progress, detectMissing: true)
            }
            guard missing else { return try await pushDeletes(&report, progress: progress) }
            if memory?.isMissingBatchRoute(batchRoute) != true {
                memory?.markMissingBatchRoute(batchRoute)
                report.notes.append(
                    "no batch endpoint at \(batchRoute.method.rawValue) \(batchRoute.path): changes go entity by entity from now on"
                )
            }
            try await pushEach(&report, progress: progress)
        }
    }

    /// Sends every record whose state is one of `states` to `route` in batches, walking them by id
    /// so that records which stay unsynced are not sent twice in one run. With `detectMissing`,
    /// stops at a first batch answered as if the route did not exist (404, 405, 501, a redirect)
    /// and returns true, counting nothing for it.
    func pushChanges(
        _ report: inout SynchronizationReport, to route: Route, states: Set<SyncState>, progress: Progress?,
        detectMissing: Bool = false
    ) async throws -> Bool {
        var after: String?
        var first = detectMissing
        while true {
            try checkCancellation()
            if shouldStop() { return false }  // a graceful stop: after the batch in flight
            let records = try await storage.fetch(
                collection: collection, syncStates: states, after: after, limit: configuration.batchSize
            )
            guard let last = records.last else { return false }
            after = last.id
            if try await pushBatch(records, to: route, states: states, &report, missingEnds: first) { return true }
            first = false
            progress?(report)
        }
    }

    /// Sends every pending outbox entry of the collection through the per-entity path, on the
    /// configuration of the storage's forwarder (``OutboxCoordinator/configuration(of:)``) with
    /// the synchronization's concurrency. A graceful stop (``shouldStop``) ends the pass after
    /// the entries in flight, their answers stored; the rest stay in the outbox.
    func pushEach(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        guard let channel, !shouldStop() else { return }  // a page reader pushes nothing
        let collection = self.collection
        let query = OutboxQuery(collections: [collection], selection: .pending)
        let deletes = Set(try await storage.outbox(query).filter { $0.operation == .delete }.map(\.sequence))
        var forwarding = OutboxCoordinator.configuration(of: storage) ?? ForwarderConfiguration()
        forwarding.maximumConcurrency = configuration.maximumConcurrency
        forwarding.jitter = 0
        let engine = OutboxEngine(storage: storage, channels: [collection: channel], configuration: forwarding)
        let shouldStop = self.shouldStop
        let result = await engine.pass(everything: true) { !Task.isCancelled && !shouldStop() }
        try checkCancellation()
        let left = Set(try await storage.outbox(query).map(\.sequence))
        let deleted = deletes.subtracting(left).count
        report.deleted += deleted
        report.pushed += max(result.report.delivered - deleted, 0)
        report.failed += result.report.retrying + result.report.rejected.count
        report.errors += result.report.errors
        for entry in result.report.rejected {
            // A 2xx moved aside is a create the server applied without naming its id.
            let applied = entry.rejection?.status.map { (200..<300).contains($0) } ?? false
            report.errors.append(
                DepotError(
                    applied ? .serverIDUnknown : .status,
                    "\(entry.operation.rawValue) of \(entry.entityID) refused: " + (entry.rejection?.message ?? ""),
                    status: entry.rejection?.status, responseBody: entry.rejection?.body))
        }
        progress?(report)
    }

    /// Pairs each reply object with the record whose id it echoes. Records with no reply object,
    /// or with two, and reply objects that name no record sent, are errors; position never counts.
    /// An id as batch replies are matched on: a UUID in its one spelling (servers echo
    /// `uuidString`'s uppercase as lowercase), anything else as it is.
    static func canonicalID(_ id: String) -> String {
        guard id.utf8.count == 36, let uuid = UUID(uuidString: id) else { return id }
        return uuid.uuidString
    }

    /// Pairs reply objects with records by position, for a server that assigns its own ids: only
    /// when the reply has one object per record and none of its ids names a record sent (else
    /// nil, and identity decides).
    func matchByPosition(_ elements: [JSON], to records: [StoredRecord], request: NetworkRequest)
        -> ([Merge], [DepotError])?
    {
        let key = configuration.identityKey
        let sent = Set(records.map { Self.canonicalID($0.id) })
        guard elements.count == records.count,
            elements.allSatisfy({ element in
                guard let object = element.objectValue else { return false }
                return Self.idText(object[key]).map { !sent.contains(Self.canonicalID($0)) } ?? true
            })
        else { return nil }
        var merges: [Merge] = []
        var errors: [DepotError] = []
        for (record, element) in zip(records, elements) {
            do {
                let reply = element.objectValue ?? [:]
                let (id, object) = try decode(reply)
                merges.append(Merge(sent: record, id: id, object: object, snapshot: reply))
            } catch {
                var error = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                error.message = "bulk reply for \(record.id.debugDescription): " + error.message
                error.request = error.request ?? summary(of: request)
                errors.append(error)
            }
        }
        return (merges, errors)
    }

    func match(_ elements: [JSON], to records: [StoredRecord], request: NetworkRequest) -> ([Merge], [DepotError]) {
        let key = configuration.identityKey
        let sent = Dictionary(records.map { (Self.canonicalID($0.id), $0) }, uniquingKeysWith: { first, _ in first })
        var replies: [String: JSONObject] = [:]
        var repeated: Set<String> = []
        var errors: [DepotError] = []
        func failure(_ message: String) -> DepotError {
            DepotError(.decoding, message, request: summary(of: request))
        }
        for (index, element) in elements.enumerated() {
            guard let object = element.objectValue, let id = Self.idText(object[key]).map(Self.canonicalID) else {
                errors.append(failure("batch reply element \(index) has no \(key.debugDescription) to match"))
                continue
            }
            guard sent[id] != nil else {
                errors.append(failure("batch reply names \(key) \(id.debugDescription), which was not sent"))
                continue
            }
            if replies.updateValue(object, forKey: id) != nil { repeated.insert(id) }
        }
        var merges: [Merge] = []
        for record in records {
            let canonical = Self.canonicalID(record.id)
            guard let reply = replies[canonical] else {
                errors.append(failure("batch reply has no entity with \(key) \(record.id.debugDescription)"))
                continue
            }
            guard !repeated.contains(canonical) else {
                errors.append(failure("batch reply has more than one entity with \(key) \(record.id.debugDescription)"))
                continue
            }
            do {
                let (id, object) = try decode(reply)
                merges.append(Merge(sent: record, id: id, object: object, snapshot: reply))
            } catch {
                var error = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                error.message = "batch reply for \(record.id.debugDescription): " + error.message
                error.request = error.request ?? summary(of: request)
                errors.append(error)
            }
        }
        return (merges, errors)
    }

    /// Sends each tombstone as `DELETE /path/:id`; a 2xx or a 404 removes it, unless it was
    /// re-created locally meanwhile.
    ///
    /// The page of tombstones only names candidates: each DELETE is built from the entity's
    /// entries and record as its claim's own transaction read them, so a tombstone delivered or
    /// re-created meanwhile (by a remote-first write, the forwarder) sends nothing.
    ///
    /// One `DELETE` stands for the entity's whole chain of pending writes only when the server
    /// holds the entity under the tombstone's id: a chain with a create in it (one sent before
    /// whose answer is not known, so the server may hold the entity under an id of its own, or
    /// not yet) goes entity by entity instead, each entry under its own key, so the create's
    /// answer moves the delete to the server's id (a `DELETE` of the temporary id would meet a
    /// `404`, taken as done, and the entity would stay on the server). A tombstone with a strong
    /// `ETag`, or whose version is unknown (a batch's reply carried no `ETag`), with
    /// ``RepositoryConfiguration/conditionalWrites`` on, goes entity by entity too: its `DELETE`
    /// carries `If-Match` (read first when the version is unknown), and a `412` or a copy changed
    /// since (another client changed the entity) goes to the repository's conflict policy instead
    /// of deleting that change.
    func pushDeletes(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        var after: String?
        let collection = self.collection
        while true {
            try checkCancellation()
            let tombstones = try await storage.fetch(
                collection: collection, syncStates: [.deleted], after: after, limit: configuration.batchSize
            )
            guard let last = tombstones.last else { return }
            after = last.id
            for tombstone in tombstones {
                if shouldStop() {  // a graceful stop: after the delete in flight
                    progress?(report)
                    return
                }
                let (lease, entries, record, _, _) = try await OutboxClaim.take(
                    entityOf: collection, id: tombstone.id, in: storage, duration: leaseSeconds)
                let claim = Claim(lease: lease, entries: entries)
                let sent = try await claim.lease.releasing { () -> Bool? in
                    // Held by another sender or refused (nothing claimed), delivered meanwhile (no
                    // tombstone left), created again (its last write no delete), a chain with a
                    // create in it, or a DELETE under If-Match (both go entity by entity): nothing
                    // sent here, the attempts the claim counted taken back. Another account's
                    // delete waits for that account (``OutboxEntry/account``).
                    guard let record, record.syncState == .deleted, entries.last?.operation == .delete,
                        !entries.contains(where: { channel?.isForAnotherAccount($0) == true }),
                        !entries.contains(where: { $0.operation == .create }), !isConditional(record)
                    else {
                        try await storage.takeBackAttempts(entries.map(\.sequence), owner: lease.owner)
                        // A chain with a create in it, or a DELETE under If-Match: entity by entity.
                        guard let record, record.syncState == .deleted else { return false }
                        let conditional = entries.last?.operation == .delete && isConditional(record)
                        return entries.contains { $0.operation == .create } || conditional ? nil : false
                    }
                    return try await claim.lease.renewing { try await pushDelete(record, claim: claim, &report) }
                }
                switch sent {
                case true?: report.deleted += 1
                case false?: break
                case nil:
                    // Counted as pushes, but for the deletes the chain delivered.
                    let (pushed, deletes) = (report.pushed, entries.filter { $0.operation == .delete }.map(\.sequence))
                    try await pushSingly([tombstone.id], &report)
                    let gone = try await storage.transaction { tx in
                        try deletes.filter { try tx.outboxEntry(sequence: $0) == nil }.count
                    }
                    report.deleted += gone
                    report.pushed = max(report.pushed - gone, pushed)
                }
            }
            progress?(report)
        }
    }

    /// Whether a `DELETE` of `tombstone` goes under a precondition, as the entity-by-entity road
    /// sends it: conditional writes on and a strong `ETag` known (`If-Match`), or the record's
    /// version unknown (``StoredRecord/isVersionUnknown``: a write's answer, a batch's reply,
    /// changed it without an `ETag`), so the server's copy is read and judged against the base
    /// first, and another client's change since is a conflict, not deleted unseen.
    private func isConditional(_ tombstone: StoredRecord) -> Bool {
        guard let channel, channel.configuration.conditionalWrites, let etag = tombstone.etag else { return false }
        return ETag.isStrong(etag) || tombstone.isVersionUnknown
    }

    /// Sends one tombstone; returns whether it went through (a 2xx or a 404).
    private func pushDelete(
        _ tombstone: StoredRecord, claim: Claim, _ report: inout SynchronizationReport
    ) async throws -> Bool {
        let collection = self.collection
        var headers = self.headers
        if let key = claim.idempotencyKey { headers["Idempotency-Key"] = key }
        let outcome: Result<NetworkResponse, DepotError>
        do {
            outcome = try await send(
                makeRequest(
                    deleteRoute.method, deleteRoute.resolvedPath(id: tombstone.id), template: deleteRoute.path,
                    headers: headers))
        } catch let error as DepotError where !error.isCancellation {
            outcome = .failure(error)
        }
        switch outcome {
        case .success: break
        case .failure(let error) where error.code == .notFound: break
        case .failure(let error):
            report.failed += 1
            report.errors.append(error)
            return false
        }
        let (id, sequences) = (tombstone.id, claim.sequences[tombstone.id] ?? [])
        // A sender that lost its lease writes nothing: the one that holds the entries now does.
        return try await storage.transaction { tx in
            guard try claim.isHeld(in: tx) else { return false }
            if try tx.fetch(collection: collection, id: id)?.syncState == .deleted {
                try tx.writeRecord(.gone(collection: collection, id: id))
                for sequence in sequences { try tx.removeOutbox(sequence: sequence) }
            }
            return true
        }
    }

    func checkCancellation() throws {
        if Task.isCancelled { throw DepotError.cancelled }
    }
}
