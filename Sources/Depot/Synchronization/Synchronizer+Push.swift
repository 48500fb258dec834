import Foundation

extension Synchronizer {
    /// A reply object matched to the record that was sent.
    struct Merge: Sendable {
        var sent: StoredRecord
        var id: String
        var object: JSONObject
        var snapshot: JSONObject
    }

    /// Sends every `.created` and `.updated` record in batches, walking them by id so that
    /// records which stay unsynced are not sent twice in one run.
    func pushChanges(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        var after: String?
        while true {
            try checkCancellation()
            let records = try await storage.fetch(
                collection: collection, syncStates: [.created, .updated], after: after,
                limit: configuration.batchSize
            ).value
            guard let last = records.last else { return }
            after = last.id
            try await pushBatch(records, &report)
            report.batches += 1
            progress?(report)
        }
    }

    func pushBatch(_ all: [StoredRecord], _ report: inout SynchronizationReport) async throws {
        // The outbox entries these records stand for are claimed first; an entity held by another
        // sender, or behind a refused entry, waits.
        let (claim, held) = try await claim(all.map(\.id))
        return try await claim.lease.releasing { try await pushBatch(all, claim: claim, held: held, &report) }
    }

    private func pushBatch(
        _ all: [StoredRecord], claim: Claim, held: Set<String>, _ report: inout SynchronizationReport
    ) async throws {
        let records = all.filter { !held.contains($0.id) }
        guard !records.isEmpty else { return }
        var headers = self.headers
        if let key = claim.idempotencyKey { headers["Idempotency-Key"] = key }
        let request: NetworkRequest
        do {
            request = try makeRequest(
                batchRoute.method, batchRoute.resolvedPath(id: nil), headers: headers,
                body: .array(records.map { .object($0.object) }))
        } catch let error as DepotError {
            report.failed += records.count
            report.errors.append(error)
            return
        }
        let elements: [JSON]
        switch try await send(request).flatMap({ array(in: $0, of: request) }) {
        case .success(let answer): elements = answer
        case .failure(let error):
            report.failed += records.count
            report.errors.append(error)
            return
        }
        var (merges, errors) = match(elements, to: records, request: request)
        let changedMeanwhile = try await merge(&merges, claim: claim)
        report.pushed += merges.count - changedMeanwhile
        report.conflicts += changedMeanwhile
        report.failed += records.count - merges.count
        report.errors += errors
    }

    /// Pairs each reply object with the record whose id it echoes. Records with no reply object,
    /// or with two, and reply objects that name no record sent, are errors; position never counts.
    /// An id as batch replies are matched on: a UUID in its one spelling (servers echo
    /// `uuidString`'s uppercase as lowercase), anything else as it is.
    static func canonicalID(_ id: String) -> String {
        guard id.utf8.count == 36, let uuid = UUID(uuidString: id) else { return id }
        return uuid.uuidString
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
                let (id, object) = try Self.decode(reply)
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

    /// Stores the matched replies in one transaction: a record still as it was sent becomes
    /// `.synced` (under the server's id) and its claimed outbox entries go; one changed since
    /// keeps its change and its entries (sent again later), with the reply as its snapshot.
    /// Returns how many had changed.
    func merge(_ merges: inout [Merge], claim: Claim) async throws -> Int {
        guard !merges.isEmpty else { return 0 }
        let (collection, batch) = (self.collection, merges)
        return try await storage.transaction { tx in
            var changed = 0
            for merge in batch {
                let current = try tx.fetch(collection: collection, id: merge.sent.id)
                if let current, current.object == merge.sent.object, current.syncState == merge.sent.syncState {
                    for sequence in claim.sequences[merge.sent.id] ?? [] { try tx.removeOutbox(sequence: sequence) }
                    if merge.id != merge.sent.id { try tx.delete(collection: collection, id: merge.sent.id) }
                    try tx.upsert(
                        StoredRecord(
                            collection: collection, id: merge.id, object: merge.object, syncState: .synced,
                            snapshot: merge.snapshot))
                    continue
                }
                changed += 1
                guard var current, merge.id == merge.sent.id else { continue }
                // The server now has what was sent: the local change stays, diffed from the reply.
                current.snapshot = merge.snapshot
                current.etag = nil
                if current.syncState == .created { current.syncState = .updated }
                try tx.upsert(current)
            }
            return changed
        }.value
    }

    /// Sends each tombstone as `DELETE /path/:id`; a 2xx or a 404 removes it, unless it was
    /// re-created locally meanwhile.
    func pushDeletes(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        var after: String?
        let collection = self.collection
        while true {
            try checkCancellation()
            let tombstones = try await storage.fetch(
                collection: collection, syncStates: [.deleted], after: after, limit: configuration.batchSize
            ).value
            guard let last = tombstones.last else { return }
            after = last.id
            for tombstone in tombstones {
                let (claim, held) = try await claim([tombstone.id])
                let sent = try await claim.lease.releasing {
                    held.isEmpty ? try await pushDelete(tombstone, claim: claim, &report) : false
                }
                if sent { report.deleted += 1 }
            }
            progress?(report)
        }
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
                makeRequest(deleteRoute.method, deleteRoute.resolvedPath(id: tombstone.id), headers: headers))
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
        try await storage.transaction { tx in
            if try tx.fetch(collection: collection, id: id)?.syncState == .deleted {
                try tx.delete(collection: collection, id: id)
                for sequence in sequences { try tx.removeOutbox(sequence: sequence) }
            }
        }.value
        return true
    }

    func checkCancellation() throws {
        if Task.isCancelled { throw DepotError.cancelled }
    }
}
