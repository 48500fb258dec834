import Foundation

extension OutboxEngine {
    /// Takes back the attempt counted on entries that were claimed but never sent (a pass stopped
    /// before them), so later writes may fold into them again.
    func unmarkAttempted(_ entries: some Sequence<OutboxEntry>) async throws {
        try await storage.takeBackAttempts(entries.map(\.sequence))
    }

    /// Sends one claimed entry and settles it: stored answer, retry time, refusal or conflict.
    func process(_ entry: OutboxEntry, report: inout ForwardingReport) async throws -> EntryResult {
        let meter = TrafficMeter()
        defer { meter.add(to: &report) }
        let (result, processed) = try await DepotTelemetry.withOptionalSpan("forward \(entry.collection)") { span in
            span?.attributes["depot.collection"] = entry.collection
            span?.attributes["depot.outbox.sequence"] = Int(entry.sequence)
            span?.attributes["depot.outbox.operation"] = entry.operation.rawValue
            let (result, processed) = try await TrafficMeter.$current.withValue(meter) {
                var processed = ForwardingReport()
                return (try await processUnmetered(entry, report: &processed), processed)
            }
            span?.attributes["depot.outbox.outcome"] = "\(result)"
            return (result, processed)
        }
        report.add(processed)
        return result
    }

    private func processUnmetered(_ entry: OutboxEntry, report: inout ForwardingReport) async throws -> EntryResult {
        guard let channel = channels[entry.collection] else {
            return try await reject(
                entry, DepotError(.invalidRequest, "no repository forwards \(entry.collection)"), &report)
        }
        let record = try await storage.fetch(collection: entry.collection, id: entry.entityID).value
        let outcome = try await channel.send(
            entry.operation, entityID: entry.entityID, payload: entry.payload, idempotencyKey: entry.idempotencyKey,
            etag: record?.etag, base: record?.snapshot, timeout: configuration.requestTimeout)
        return try await settle(entry, outcome, channel: channel, report: &report, round: 0)
    }

    private func settle(
        _ entry: OutboxEntry, _ outcome: OutboxChannel.Outcome, channel: OutboxChannel,
        report: inout ForwardingReport, round: Int
    ) async throws -> EntryResult {
        switch outcome {
        case .delivered(let answer):
            return try await delivered(entry, answer, channel: channel, &report)
        case .retry(let error):
            return try await scheduleRetry(entry, error, &report)
        case .reject(let error):
            return try await reject(entry, error, &report)
        case .conflict(let error):
            return try await resolveConflict(entry, error, channel: channel, &report, round: round)
        }
    }

    private func delivered(
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
        try await storeAnswer(entry, answer, decoded)
        report.delivered += 1
        emit(.delivered(entry))
        return .done
    }

    private func scheduleRetry(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult
    {
        var waiting = entry
        waiting.failures += 1
        let delay = configuration.delay(afterAttempt: waiting.failures, error: error)
        let due = configuration.clock.now.addingTimeInterval(delay.seconds)
        waiting.nextAttempt = due
        waiting.lastError = error.description
        // A request that never left (no connection) cannot have been applied: the entry is as
        // good as unsent, and later writes may fold into it again.
        if error.neverReachedServer { waiting.attempts = max(0, waiting.attempts - 1) }
        try await update(waiting)
        report.retrying += 1
        report.errors.append(error)
        emit(.retrying(waiting, error))
        return .waiting(due)
    }

    private func reject(_ entry: OutboxEntry, _ error: DepotError, _ report: inout ForwardingReport)
        async throws -> EntryResult
    {
        var refused = entry
        refused.lastError = error.description
        refused.rejection = OutboxRejection(
            status: error.status, body: error.responseBody ?? Data(), message: error.description)
        try await update(refused)
        report.rejected.append(refused)
        emit(.rejected(refused))
        return .rejected
    }

    /// Writes the entry's new state, if it is still there.
    private func update(_ entry: OutboxEntry) async throws {
        try await storage.transaction { tx in
            if try tx.outboxEntry(sequence: entry.sequence) != nil { try tx.replaceOutbox(entry) }
        }.value
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
        if Self.isApplied(entry, on: server?.json) {
            return try await delivered(entry, server, channel: channel, &report)
        }
        let local = try await storage.fetch(collection: entry.collection, id: entry.entityID).value
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
                return try await reject(entry, error as? DepotError ?? DepotError(.decoding, "\(error)"), &report)
            }
            try await storeAnswer(entry, server, decoded)
            emit(.conflict(entry, .serverWins))
            return .done
        }
        // The local side wins: send again over the server's version, under a new key (the old one
        // is bound to the refused request), stored before the send.
        var again = entry
        again.idempotencyKey = UUID().uuidString
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
        try await update(again)
        emit(.conflict(entry, resolution))
        let outcome = try await channel.send(
            again.operation, entityID: again.entityID, payload: again.payload, idempotencyKey: again.idempotencyKey,
            etag: server?.etag, base: server?.json, timeout: configuration.requestTimeout)
        return try await settle(again, outcome, channel: channel, report: &report, round: round + 1)
    }

    /// Whether the server's version already holds what `entry` asked for: an earlier send of it
    /// (whose answer was lost) was applied.
    static func isApplied(_ entry: OutboxEntry, on server: JSONObject?) -> Bool {
        switch entry.operation {
        case .delete:
            return server == nil
        case .create, .update:
            guard let server, let payload = entry.payload?.objectValue else { return false }
            return payload.allSatisfy { key, value in (server[key] ?? .null) == value }
        case .patch:
            guard let server, let patch = entry.payload else { return false }
            return JSON.object(server).applyingMergePatch(patch) == .object(server)
        }
    }

    /// Removes `entry` and stores the server's answer for its entity in one transaction. With no
    /// later entry for the entity, the record becomes the answer (`.synced`), or goes for a delete;
    /// with later entries, the record keeps its local object and takes the answer as its snapshot
    /// and `ETag`. A server-chosen id moves
    /// the record and the entity's later entries to it. An entry already gone (discarded) writes
    /// nothing.
    func storeAnswer(
        _ entry: OutboxEntry, _ answer: OutboxChannel.Answer?, _ decoded: (id: String, object: JSONObject)?
    ) async throws {
        try await storage.transaction { tx in
            guard try tx.removeOutbox(sequence: entry.sequence) else { return }
            let (collection, oldID) = (entry.collection, entry.entityID)
            let later = try tx.outboxEntries(collection: collection, entityID: oldID)
            let record = try tx.fetch(collection: collection, id: oldID)
            guard let answer, let decoded else {
                // A delete went through, or the server no longer has the entity.
                if later.isEmpty, record != nil { try tx.delete(collection: collection, id: oldID) }
                return
            }
            if decoded.id != oldID {
                if record != nil { try tx.delete(collection: collection, id: oldID) }
                for var moved in later {
                    moved.entityID = decoded.id
                    try tx.replaceOutbox(moved)
                }
            }
            guard !later.isEmpty, var record else {
                try tx.upsert(
                    StoredRecord(
                        collection: collection, id: decoded.id, object: decoded.object, syncState: .synced,
                        snapshot: answer.json, etag: answer.etag))
                return
            }
            record.id = decoded.id
            record.snapshot = answer.json
            record.etag = answer.etag
            if record.syncState == .created { record.syncState = .updated }
            try tx.upsert(record)
        }.value
    }
}

extension DepotError {
    /// True when the request certainly never reached the server: no connection could be made, or
    /// it was held back behind earlier writes.
    var neverReachedServer: Bool {
        if code == .queuedBehindEarlierWrites { return true }  // not sent: earlier writes go first
        guard code == .transport, let error = underlying as? URLError else { return false }
        return [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet].contains(error.code)
    }
}
