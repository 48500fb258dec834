import Foundation

extension StorageTransaction {
    /// Stores the server's answer to a write of one entity: the one rule every road that sends a
    /// write uses (the forwarder, a repository's immediate send, a direct remote write, the push).
    ///
    /// - When the server assigned the entity another id than the one sent, the id moves
    ///   everywhere: the record and every outbox entry of the entity still waiting go under the
    ///   server's id, so a later write is sent to the entity the server made.
    /// - When a newer local change exists (the entity still has outbox entries, and its record is
    ///   not synced), the record keeps its local object and state (`.created` becomes `.updated`:
    ///   the server has it now) and takes the answer as its snapshot and `ETag`.
    /// - Otherwise the record becomes the answer, `.synced`, with its `ETag`.
    /// - With no answer (a delete went through, or the server no longer has the entity), the
    ///   record goes, unless a newer local change exists.
    ///
    /// Call it after removing the outbox entries the answer settles, in the same transaction.
    ///
    /// - Parameters:
    ///   - answer: the server's entity as a synced record under the server's id (its snapshot the
    ///     server's JSON, its `ETag`), or nil.
    ///   - collection: the entity's collection.
    ///   - sentID: the id the write was sent under.
    func storeServerAnswer(_ answer: EncodedRecord?, collection: String, sentID: String) throws {
        let record = try fetch(collection: collection, id: sentID)
        var pending = try outboxEntries(collection: collection, entityID: sentID)
        guard let answer else {
            // A delete went through, or the server no longer has the entity.
            if pending.isEmpty, record != nil { try delete(collection: collection, id: sentID) }
            return
        }
        if answer.id != sentID {
            // The server chose the id: the record and the entity's waiting entries move to it.
            if record != nil { try delete(collection: collection, id: sentID) }
            for index in pending.indices {
                pending[index].entityID = answer.id
                try replaceOutbox(pending[index])
            }
        }
        guard !pending.isEmpty, var record, record.syncState != .synced else {
            try upsert(encoded: answer)
            return
        }
        // A newer local change waits to be sent: it stays, diffed from what the server holds now.
        let server = try answer.decoded()
        record.id = answer.id
        record.snapshot = server.snapshot ?? server.object
        record.etag = answer.etag
        if record.syncState == .created { record.syncState = .updated }
        try upsert(record)
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
