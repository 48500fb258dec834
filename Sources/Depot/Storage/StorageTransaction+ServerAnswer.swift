import Foundation

extension StorageTransaction {
    /// Stores the server's answer to a write of one entity: the one rule every road that sends a
    /// write uses (the forwarder, a repository's immediate send, a direct remote write, the push).
    ///
    /// - When the server assigned the entity another id than the one sent, the id moves
    ///   everywhere: the record, the fields of its object that name the id, and every outbox entry
    ///   of the entity still waiting (their payloads too) go under the server's id, and the move is
    ///   remembered (``currentID(collection:id:)``), so a later write under the old id is sent to
    ///   the entity the server made.
    /// - A create still waiting for the entity becomes an update (the server holds it now), unless
    ///   a delete waits before it: the chain is changed only up to the entity's next delete.
    /// - When a newer local change exists (the entity still has outbox entries, and its record is
    ///   not synced), the record keeps its local change and state (`.created` becomes `.updated`:
    ///   the server has it now) and takes the answer as its snapshot and `ETag`: the keys those
    ///   entries write keep the app's values, the object's other keys take the answer's. A changed record
    ///   with no entry left to send its change (a ``StorageRepository`` write records none) gets
    ///   one, so the change is not lost.
    /// - Otherwise the record becomes the answer, `.synced`, with its `ETag`.
    /// - With no answer (a delete went through, or the server no longer has the entity), the
    ///   record goes, unless a newer local change exists.
    ///
    /// Call it after removing the outbox entries the answer settles, in the same transaction.
    /// It is the stable entry point for "a write's answer" (``RecordSource/writeAnswer(_:)`` of
    /// the one record-write function, ``writeRecord(_:)``, which also notes the delivery,
    /// releases the quarantine row and drops the cached answers the write made stale).
    ///
    /// - Parameters:
    ///   - answer: the server's entity as a synced record under the server's id (its snapshot the
    ///     server's JSON, its `ETag`), or nil.
    ///   - collection: the entity's collection.
    ///   - sentID: the id the write was sent under.
    ///   - sent: the object the write sent, when the caller knows it: a record whose object
    ///     differs from it changed while the write was out, and keeps that change.
    ///   - storage: the storage this transaction is of (the answer is noted in the store's
    ///     ``DeliveryLog`` marks, so a read that began before it never overwrites it).
    /// - Returns: what was done: `.written` (the answer stored, synced), `.kept` (a newer local
    ///   change stays on top of it; nil for none stored), `.removed`.
    ///   - deleted: for a nil answer, how the record the delete was made on is told from one
    ///     written after it (which stays).
    @discardableResult
    func storeServerAnswer(
        _ answer: EncodedRecord?, collection: String, sentID: String, sent: JSONObject? = nil,
        deleted: WriteAnswer.DeleteMark = .agreed, in storage: Storage
    ) throws -> RecordWrite {
        try writeRecord(
            .writeAnswer(
                WriteAnswer(answer: answer, collection: collection, sentID: sentID, sent: sent, deleted: deleted)))
    }

    /// The record and outbox part of a write's answer, for ``writeRecord(_:)`` (which keeps the
    /// delivery mark, the quarantine row and the cache entries): see
    /// ``storeServerAnswer(_:collection:sentID:sent:deleted:in:)``.
    func storeAnswerRecord(_ write: WriteAnswer) throws -> RecordWrite {
        let (collection, sentID, sent) = (write.collection, write.sentID, write.sent)
        let record = try fetch(collection: collection, id: sentID)
        var pending = try outboxEntries(collection: collection, entityID: sentID)
        guard var answer = write.answer else {
            // A delete went through, or the server no longer has the entity.
            guard pending.isEmpty, let record else {
                // A create waits behind it: it makes the entity anew, so the record is a new
                // entity's, one the server has not seen (a delete of it before that create goes
                // out removes it, as a delete of any unsent create does). A record the app deleted
                // again since (a delete waits behind that create) stays deleted.
                guard var record, record.syncState != .deleted else { return .kept(record) }
                if pending.first?.operation == .create, record.syncState != .created {
                    (record.syncState, record.snapshot, record.etag) = (.created, nil, nil)
                    try upsert(record)
                } else if pending.first?.operation != .create, record.snapshot != nil || record.etag != nil {
                    // A change written over the delete's tombstone waits behind it (an update or
                    // a patch of the entity the app had deleted): the server's copy its snapshot
                    // and `ETag` describe is the one this delete removed. A refusal of that change
                    // then finds no server copy to go back to.
                    (record.snapshot, record.etag) = (nil, nil)
                    try upsert(record)
                }
                return .kept(record)
            }
            if try writtenAfterDelete(record, write) {
                // Written after the delete (the entity made again, by an answer under another
                // spelling of its id, or by a local-only write): it stays, and a change of it no
                // entry sends gets one.
                try adoptUnsent(record)
                return .kept(record)
            }
            try delete(collection: collection, id: record.id)
            // The id is free again: a move it kept from an older entity is not this one's.
            try forgetIDMove(collection: collection, id: sentID)
            // The entity is gone: the moves to it from ids Depot made go with it.
            try forgetTemporaryMoves(collection: collection, to: sentID)
            return .removed
        }
        // An answer that does not tell the version it made leaves it unknown, not none.
        answer.etag = ETag.written(answer: answer.etag, held: record?.etag)
        var changed = false
        if let record, let sent, record.syncState != .synced { changed = record.object != sent }
        var fields: JSONObject = [:]
        if answer.id != sentID {
            // The server chose the id: the record and the entity's waiting entries move to it.
            let server = try answer.decoded().object
            fields = MovedIDs.identityFields(
                local: record?.object ?? sent, oldID: sentID, server: server, newID: answer.id)
            if record != nil { try delete(collection: collection, id: sentID) }
            try recordIDMove(collection: collection, from: sentID, to: answer.id, fields: fields)
        }
        // The entity's pending writes are a chain: the answer speaks for the entity only up to its
        // next delete (a create behind that delete makes it anew, and stays a create).
        var pastDelete = false
        for index in pending.indices {
            var entry = pending[index]
            entry.entityID = answer.id
            // The server holds the entity: a create left behind would make a second one.
            if entry.operation == .create, !pastDelete { entry.operation = .update }
            if entry.operation == .delete { pastDelete = true }
            if case .object(let object)? = entry.payload, entry.operation != .patch {
                entry.payload = .object(MovedIDs.rewrite(object, from: sentID, fields: fields))
            }
            if entry != pending[index] {
                try replaceOutbox(entry)
                pending[index] = entry
            }
        }
        if record == nil, !pending.isEmpty {
            // No record, yet the entity's later writes wait: the app deleted it since this write
            // was sent (a create and a delete after that folded into nothing, behind a delete
            // still queued). Gone is the newest local state; the answer does not bring it back.
            return .kept(nil)
        }
        guard var record, record.syncState != .synced, !pending.isEmpty || changed else {
            try upsert(encoded: answer)
            return .written
        }
        // A newer local change waits to be sent: it stays, diffed from what the server holds now.
        // The object's other fields (an older copy's: another account's `viewer`) follow the
        // answer, so they are never taken for the app's change once the snapshot moves on.
        let server = try answer.decoded()
        record.id = answer.id
        record.object = MovedIDs.rewrite(
            Self.object(of: record, under: server.object, pending: pending), from: sentID, fields: fields)
        record.snapshot = server.snapshot ?? server.object
        record.etag = answer.etag
        if record.syncState == .created { record.syncState = .updated }
        try upsert(record)
        if pending.isEmpty { try adoptUnsent(record) }
        return .kept(record)
    }

    /// The object of `record`, whose change waits in `pending` (its entity's outbox entries still
    /// to go), once a write's answer `server` (as the app models it) becomes its snapshot. Which
    /// keys are the app's is read from the recorded fact, the entries' payloads (the keys they
    /// write, a `null` only where the object holds `null` too: a field the app cleared), never from comparing the object with the older snapshot: those
    /// keep the object's values, and every other key of the object (a value of an older server
    /// copy: another account's `viewer`, a stamp) takes `server`'s value, or goes when `server` has
    /// none. A key the object lacks stays missing (a field the app cleared, whose entry is still to
    /// go). Without entries that say (a change no entry sends yet, a tombstone, a payload that is
    /// not an object), the object stays as it is.
    private static func object(
        of record: StoredRecord, under server: JSONObject, pending: [OutboxEntry]
    ) -> JSONObject {
        guard !pending.isEmpty, record.syncState != .deleted else { return record.object }
        var written = Set<String>()
        for entry in pending where entry.operation != .delete {
            guard case .object(let payload)? = entry.payload else { return record.object }
            // A `null` the record also holds is a field the app cleared; a `null` under a value
            // is a field the app's entity lacks (a read put the server's copy of it there).
            for (key, value) in payload where value != .null || record.object[key] == .null { written.insert(key) }
        }
        var object: JSONObject = [:]
        for (key, value) in record.object {
            if written.contains(key) {
                object[key] = value
            } else if let answered = server[key] {
                object[key] = answered
            }
        }
        return object
    }

    /// Whether `record`, the one a delete's answer (`write`, nil) finds with no entry of its entity
    /// left, was written after the delete was made (see ``WriteAnswer/DeleteMark``).
    private func writtenAfterDelete(_ record: StoredRecord, _ write: WriteAnswer) throws -> Bool {
        guard record.syncState != .deleted else { return false }
        switch write.deleted {
        case .agreed: return false
        case .tombstone: return true
        case .sentAt(let reader):
            return try reader?.deliveredSince(collection: write.collection, id: write.sentID, in: self) ?? false
        }
    }

    /// Appends the outbox entry that sends `record` as it is now: a create, an update or a delete
    /// by its sync state; nothing for a synced record. Call it in the transaction that read it.
    func adoptUnsent(_ record: StoredRecord) throws {
        let operation: OutboxOperation
        switch record.syncState {
        case .synced: return
        case .created: operation = .create
        case .updated: operation = .update
        case .deleted: operation = .delete
        }
        _ = try appendOutbox(
            OutboxEntry(
                sequence: 0, collection: record.collection, entityID: record.id, operation: operation,
                payload: operation == .delete ? nil : .object(record.object)))
    }
}

extension ETag {
    /// The write `ETag` a record keeps after a write's answer that came with `answer` (nil for
    /// none), over a record that held `held`: the answer's; for an answer without one (a batch's
    /// element, a `204` without an `ETag`), ``unknownVersion`` when the record held a version (the
    /// write changed it, and the server did not say to what: the next conditional write reads it
    /// first), and none when it held none (a server that sends no `ETag`s is never asked).
    static func written(answer: String?, held: String?) -> String? {
        if let answer { return answer }
        return held == nil ? nil : unknownVersion
    }
}

extension EncodedRecord {
    /// The server's answer as a synced record: `object` (the entity as the app models it) under
    /// `id`, with the server's `json` as its snapshot and its `ETag`.
    ///
    /// - Throws: `DepotError` `.encoding` for a JSON value that cannot be written.
    static func answer(
        collection: String, id: String, object: JSONObject, json: JSONObject?, etag: String?
    ) throws -> EncodedRecord {
        let text = try text(object)
        let snapshot: Snapshot
        if let json, json != object {
            snapshot = .encoded(try Self.text(json))
        } else {
            snapshot = .sameAsObject
        }
        return EncodedRecord(
            unchecked: collection, id: id, object: text, syncState: .synced, snapshot: snapshot, etag: etag)
    }
}
