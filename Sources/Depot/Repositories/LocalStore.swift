import Foundation

/// The entity-level view of one collection of a ``Storage``: maps entities to records and applies
/// the sync-state rules (a local write marks the record unsynced; a local delete of a record the
/// server has leaves a tombstone). Shared by ``StorageRepository`` and
/// ``CRUDNetworkingStorageRepository``.
struct LocalStore<Entity: Identifiable & Sendable>: Sendable where Entity.ID: PathComponentConvertible {
    let storage: Storage
    let collection: String
    /// The body a write sends to the server, from the entity and its object as stored (encoded
    /// once); set, every local write is also recorded in the outbox, in the same transaction
    /// (networking + storage repositories); nil, none is.
    var outboxPayload: (@Sendable (Entity, JSONObject) throws -> JSONObject)? = nil
    /// The keys the server owns (``RepositoryConfiguration/serverOwnedKeys``): a server's copy
    /// stored under a pending local change shows its own values for them.
    var serverOwnedKeys: Set<String> = []
    /// How `Codable` entities are spelled (``RepositoryConfiguration/coding``): the store keeps the
    /// server's spelling.
    var coding = EntityCoding.default
    /// The keys that name entities of other collections (``RepositoryConfiguration/references``):
    /// a local write follows their moves and records the ones holding ids Depot made.
    var references: [EntityReference] = []
    /// The account the app declares now (``Networking/account``), recorded on every outbox entry
    /// a write makes (``OutboxEntry/account``); nil for none.
    var account: String?

    /// The live record of `id` (or of the id the server replaced it with); nil for none or a
    /// tombstone.
    func record(id: String) async throws -> StoredRecord? {
        var found = try await storage.fetch(collection: collection, id: id)
        if found == nil {
            let collection = self.collection
            found = try await storage.transaction { tx in
                try tx.currentID(collection: collection, id: id).flatMap {
                    try tx.fetch(collection: collection, id: $0.id)
                }
            }
        }
        guard let record = found, record.syncState != .deleted else { return nil }
        return record
    }

    /// Where `id` lives now: the id the server gave the entity when it replaced `id` (a create it
    /// gave its own id), with the object fields that name it; nil when `id` is a record's, or
    /// never moved.
    func moved(id: String) async throws -> (id: String, fields: JSONObject)? {
        let collection = self.collection
        return try await storage.transaction { tx in
            guard try tx.fetch(collection: collection, id: id) == nil else { return nil }
            return try tx.currentID(collection: collection, id: id)
        }
    }

    /// `entity` under the id the server replaced its id with, its id fields rewritten; `entity`
    /// itself when its id never moved.
    func following(_ entity: Entity) async throws -> Entity {
        let id = entity.id.pathComponent
        guard let current = try await moved(id: id) else { return entity }
        let object = MovedIDs.rewrite(try JSONMapping.object(entity, coding: coding), from: id, fields: current.fields)
        return try JSONMapping.entity(Entity.self, from: .object(object), coding: coding)
    }

    func read(id: String) async throws -> Entity {
        guard let record = try await record(id: id) else {
            throw DepotError(.notFound, "no \(collection) with id \(id) in the local store")
        }
        return try decoded(record)
    }

    func readAll(_ criteria: Criteria) async throws -> [Entity] {
        try await storage.fetch(collection: collection, matching: criteria).map(decoded)
    }

    /// The entities of the records matching `criteria` the model can read, and the records it
    /// cannot (neither their object nor their server snapshot with their pending change on top),
    /// reported as a pull reports its unreadable rows.
    func readableAll(_ criteria: Criteria) async throws -> (entities: [Entity], unreadable: [UnreadableRow]) {
        var (entities, unreadable): ([Entity], [UnreadableRow]) = ([], [])
        for record in try await storage.fetch(collection: collection, matching: criteria) {
            do {
                entities.append(try decoded(record))
            } catch let error as DepotError where error.code == .decoding {
                unreadable.append(
                    UnreadableRow(
                        collection: record.collection, id: record.id, raw: .object(record.object), error: error))
            }
        }
        return (entities, unreadable)
    }

    /// The entity a stored record holds. A stored copy the model cannot read (written by another
    /// version of the app) is read again from the record's server snapshot with its pending change
    /// on top (what the store holds for it, the server's fields included); only when that does not
    /// read either does it fail with `.decoding` naming its collection and id.
    func decoded(_ record: StoredRecord) throws -> Entity {
        do {
            return try storedObject(record)
        } catch let error as DepotError {
            guard let snapshot = record.snapshot,
                let entity = try? JSONMapping.entity(
                    Entity.self,
                    from: .object(PendingChange(record, serverOwnedKeys: serverOwnedKeys).applied(to: snapshot)),
                    coding: coding)
            else { throw error }
            return entity
        }
    }

    /// The entity a stored record's object holds, not falling back on its snapshot; fails with
    /// `.decoding` naming its collection and id.
    func storedObject(_ record: StoredRecord) throws -> Entity {
        do {
            return try JSONMapping.entity(Entity.self, from: .object(record.object), coding: coding)
        } catch var error as DepotError {
            error.message = "stored \(record.collection) record \(record.id): " + error.message
            throw error
        }
    }

    /// Stores a local create (`.created`); rejects with `.conflict` when the id is taken. Reads
    /// and writes in one transaction, so a concurrent write to the id cannot slip in between.
    /// With `madeID`, the entity's id is one Depot made (a ``TemporaryID``).
    func create(_ entity: Entity, idempotencyKey: String? = nil, madeID: Bool = false) async throws -> Entity {
        // As stored: a reference to an entity whose id moved names the id it has now.
        try await create([entity], idempotencyKey: idempotencyKey, madeIDs: madeID)[0]
    }

    /// Stores a local update: `.updated`, or still `.created` if the server has never seen it; the
    /// server's snapshot and `ETag` are kept, so a later PATCH sends the same diff. One
    /// transaction, like ``create(_:)``. With `patch`, the outbox entry is a merge patch.
    func update(_ entity: Entity, patch: Bool = false, idempotencyKey: String? = nil) async throws -> Entity {
        try await update([entity], patch: patch, idempotencyKey: idempotencyKey)[0]
    }

    /// Deletes locally: gone at once if the server never saw it, else a `.deleted` tombstone.
    /// One transaction, like ``create(_:)``.
    func delete(id: String, idempotencyKey: String? = nil) async throws {
        try await delete(ids: [id], idempotencyKey: idempotencyKey)
    }

    /// Stores what the server answered to a read: `.synced`, with the server's JSON as it came as
    /// the snapshot (the entity's own object when the answer kept none) and the answer's `ETag`.
    /// Each answer goes through the one record-write function
    /// (``StorageTransaction/writeRecord(_:)``): a record with local changes not yet sent is left
    /// as it is (its outbox entries will bring the server up to
    /// date, and a read must not undo them), a list's copy of the stored version writes nothing
    /// (the record keeps its `ETag`), and only a record's own `GET` writes its cache entry.
    ///
    /// `reads` is the read these answers came from: a record a write's answer was stored for
    /// since that read's request left is newer than the answer, and kept. `list` says the answers
    /// are a list's (`readAll`), not each its record's own `GET`. `page` is the list's HTTP cache
    /// entry (nil entry: forget it), written in the same transaction; `quarantining` the rows of
    /// the list the app could not read, kept in the quarantine with them.
    ///
    /// - Returns: what the store kept over an answer (a pending local change, a newer delivery),
    ///   by id: the record a read returns in place of the server's older copy, or nil when the
    ///   store holds no live record (a pending delete, or a delivered one).
    @discardableResult
    func storeAnswers(
        _ answers: [RemoteAnswer<Entity>], reads: DeliveryLog.Scope? = nil,
        list: Bool = false, page: (key: String, entry: HTTPCacheEntry?)? = nil, quarantining: [UnreadableRow] = [],
        identityKey: String? = nil
    ) async throws -> [String: StoredRecord?] {
        let collection = self.collection
        // A 304 writes no record (at most its renewed cache entry); a stale answer after an
        // error writes nothing.
        var entries: [(key: String, entry: HTTPCacheEntry)] = []
        var records: [(EncodedRecord, AnswerCaching?, clientID: String?)] = []
        for answer in answers {
            switch answer.caching {
            case .notModified(let refreshed?, let key): entries.append((key, refreshed))
            case .notModified, .staleAfterError: continue
            case .store, .forget, nil:
                // The client's id the server echoes (a create's own, under a server-made id).
                let clientID = identityKey.flatMap { MovedIDs.idText(answer.json?[$0]) }.map(Self.storedID)
                records.append(
                    (try Self.syncedRecord(answer, collection: collection, coding: coding), answer.caching, clientID))
            }
        }
        guard !records.isEmpty || !entries.isEmpty || page != nil || !quarantining.isEmpty else { return [:] }
        let (reader, cacheWrites, copies, serverKeys) = (reads?.current, entries, records, serverOwnedKeys)
        return try await storage.transaction { tx in
            for (key, entry) in cacheWrites { try tx.writeRecord(.notModified(key: key, refreshed: entry)) }
            // Rows the app cannot read are kept raw, out of its reads, as a pull keeps them; a
            // readable version of a kept row supersedes it.
            try tx.quarantine(quarantining, now: Date())
            if list { try tx.releaseQuarantine(collection: collection, ids: copies.map(\.0.id)) }
            var kept: [String: StoredRecord?] = [:]
            for (record, caching, clientID) in copies {
                let copy = ServerCopy(record: record, reader: reader, clientID: clientID, serverOwnedKeys: serverKeys)
                if case .kept(let current) = try tx.writeRecord(list ? .listAnswer(copy) : .detailRead(copy, caching)) {
                    kept[record.id] = .some(current?.syncState == .deleted ? nil : current)
                }
            }
            if let (key, entry) = page {
                // The list's entry, written after its records: it names them as the store holds
                // them now, and a record written since (by any road) makes it unusable.
                try tx.storeListEntry(entry, key: key, collection: collection)
            }
            return kept
        }
    }

    /// `text` as the store spells an id of `Entity`: a UUID in its one canonical spelling.
    static func storedID(_ text: String) -> String {
        guard Entity.ID.self == UUID.self, let uuid = UUID(uuidString: text) else { return text }
        return uuid.pathComponent
    }

    /// Stores the server's answer to a write this process sent directly (not through the outbox),
    /// by the one rule (``StorageTransaction/storeServerAnswer(_:collection:sentID:sent:deleted:in:)``).
    ///
    /// When a local write to the same id was recorded in the outbox while the request was out, that
    /// newer write stays: its object and sync state are kept and only the server's snapshot and
    /// `ETag` are taken from the answer, so a later PATCH diffs against what the server holds and
    /// the outbox sends the newer write after this one. Otherwise the answer is stored `.synced`.
    /// When the server gave a create another id than `sentID`, the record and its entries move to it.
    /// The server's answer as a `.synced` record of `collection`: its entity, the answer's JSON as
    /// the snapshot (the same text is stored once) and its `ETag`.
    static func syncedRecord(
        _ answer: RemoteAnswer<Entity>, collection: String, coding: EntityCoding = .default
    ) throws -> EncodedRecord {
        let object = try EncodedRecord.encode(answer.entity, coding: coding)
        let text = try answer.json?.objectValue.map(EncodedRecord.text)
        return EncodedRecord(
            unchecked: collection, id: answer.entity.id.pathComponent, object: object, syncState: .synced,
            snapshot: text.map { $0 == object ? .sameAsObject : .encoded($0) } ?? .sameAsObject,
            etag: answer.etag)
    }

    func storeWriteAnswer(_ answer: RemoteAnswer<Entity>, sentID: String? = nil, sent: Entity? = nil) async throws {
        let sentObject = try sent.map { try JSONMapping.object($0, coding: coding) }
        let collection = self.collection
        let record = try Self.syncedRecord(answer, collection: collection, coding: coding)
        let storage = self.storage
        try await storage.storingAnswers { tx in
            _ = try tx.storeServerAnswer(
                record, collection: collection, sentID: sentID ?? record.id, sent: sentObject, in: storage)
        }
    }

    /// Stores that the server deleted the entity a direct delete of `sentID` named, by the one
    /// rule (``StorageTransaction/storeServerAnswer(_:collection:sentID:sent:deleted:in:)``): the record goes,
    /// unless a newer local write to it waits in the outbox, or (with `since`, begun before the
    /// DELETE was sent) a write's answer for it was stored while the DELETE was out: the entity was
    /// created again, and the server holds it.
    func storeDeleteAnswer(sentID: String, since sent: DeliveryLog.Reader? = nil) async throws {
        let (collection, storage) = (self.collection, self.storage)
        try await storage.storingAnswers { tx in
            _ = try tx.storeServerAnswer(
                nil, collection: collection, sentID: sentID, deleted: .sentAt(sent), in: storage)
        }
    }

    /// Throws `.notFound` when `id` is one Depot made (``StorageTransaction/isTemporaryID(collection:id:)``)
    /// that the store holds nothing under and that moved nowhere: its create was cancelled, or
    /// its entity deleted after the server named it. No server knows the id, so no request is
    /// made for it.
    func refuseMadeID(_ id: String) async throws {
        if try await readTarget(id: id).madeIDGone {
            throw DepotError(
                .notFound, "\(collection) \(id) is an id Depot made whose entity is gone: nothing to ask the server")
        }
    }

    /// Where a request for `id` goes, in one transaction: `moved`, the id the server replaced it
    /// with (``moved(id:)``); `madeIDGone`, whether it is an id Depot made that names nothing
    /// (see ``refuseMadeID(_:)``). Both nil and false for a record the store holds under `id`.
    func readTarget(id: String) async throws -> (moved: String?, madeIDGone: Bool) {
        let collection = self.collection
        return try await storage.transaction { tx in
            guard try tx.fetch(collection: collection, id: id) == nil else { return (nil, false) }
            if let current = try tx.currentID(collection: collection, id: id) { return (current.id, false) }
            return (nil, try tx.isTemporaryID(collection: collection, id: id))
        }
    }

    /// The stored record with `id`, tombstones included.
    func anyRecord(id: String) async throws -> StoredRecord? {
        try await storage.fetch(collection: collection, id: id)
    }

    /// Forgets an entity the server no longer has.
    func remove(id: String) async throws {
        let collection = self.collection
        try await storage.transaction { tx in
            _ = try tx.writeRecord(.gone(collection: collection, id: id))
        }
    }
}
