import Foundation

/// Where a server's copy of a record came from, as the one record-write function
/// (``StorageTransaction/storeServerCopy(_:source:reader:)``) is told: what it keeps of the
/// record's derived state depends on it.
enum RecordSource: Sendable {
    /// The record's own `GET` answered `200`: its HTTP-cache entry becomes what `caching` says
    /// (`.store` keeps the new entry, `.forget` or nil drops it).
    case detailRead(AnswerCaching?)
    /// A list read's answer (`readAll`).
    case listAnswer
    /// A pull page.
    case pullPage
    /// A row kept in the quarantine that the app can read now.
    case quarantine
}

/// What the record-write function did with a server's copy.
enum RecordWrite: Sendable {
    /// The copy is stored.
    case written
    /// The copy was the stored version (a list's summary of it included): nothing was written,
    /// and the record keeps its `ETag`, snapshot and cache entry.
    case unchanged
    /// The store holds something newer, which stays: a pending local change (the record, not
    /// synced), or a write's answer delivered since the read's request left (the record, or nil
    /// when that answer removed it).
    case kept(StoredRecord?)
}

extension StorageTransaction {
    /// Stores a server's copy of a record that a read brought (a detail `GET`'s `200`, a list
    /// answer, a pull page, a quarantine re-merge): the one rule for every such road, in the
    /// caller's transaction.
    ///
    /// - A record a write's answer was stored for since `reader`'s read began stays as it is: the
    ///   copy is older.
    /// - A pending local delete stays as it is. Any other record with a pending local change (not
    ///   synced) takes the copy with that change on top (``PendingChange``): the copy becomes its
    ///   snapshot, its object the copy with the keys the app changed since its last snapshot as
    ///   the app set them; its sync state and write `ETag` stay (the outbox entries that carry the
    ///   change were made against that `ETag`, so a conflict is still seen as one).
    /// - A copy without an `ETag` (a list answer, a pull page) of a synced record whose snapshot
    ///   already holds every field of the copy with the same value is the stored version: nothing
    ///   is written, so the record keeps its fuller snapshot (a list's summary never replaces a
    ///   detail answer's fields) and its cache entry (a `304` to its validator still describes
    ///   what is stored).
    /// - Otherwise the copy is stored. Its write `ETag` is the copy's, or, for a copy without one,
    ///   the one the record kept: a list's copy never drops it, so a later `update` still sends
    ///   `If-Match` (at worst a stale one, which the server refuses as a conflict, never a silent
    ///   overwrite). The record's HTTP-cache entry is written only by its own `GET`
    ///   (``RecordSource/detailRead(_:)``, the stored version's or not) and dropped by any other
    ///   source that wrote the record, since the validators it kept no longer describe what the
    ///   store holds.
    ///
    /// - A copy that names, under the key the server echoes the client's id with (`clientID`), or
    ///   as the same UUID spelled another way, a record of another id with a pending local change
    ///   whose create was sent (a create whose answer was lost: the server made the entity under
    ///   its own id or spelling, the store does not know it yet) writes nothing:
    ///   that record, the entity as the app has it, stays, and its outbox entries bring the server
    ///   up to date (the create's answer moves it to the server's id).
    ///
    /// - Parameter absent: what a caller that looked a whole page up at once (``presence(of:)``)
    ///   knows is not stored for this record, so the rule does not ask again row by row.
    /// - Returns: what was done.
    func storeServerCopy(
        _ copy: EncodedRecord, source: RecordSource, reader: DeliveryLog.Reader? = nil, clientID: String? = nil,
        absent: StoredPresence.Absent = []
    ) throws -> RecordWrite {
        let collection = copy.collection
        let current = absent.contains(.record) ? nil : try fetch(collection: collection, id: copy.id)
        // A copy of an entity the store does not hold under this id may be one it holds under another.
        if current == nil, let pending = try sentCreate(of: copy, echoing: clientID) { return .kept(pending) }
        if let reader, try reader.deliveredSince(collection: collection, id: copy.id, in: self) {
            return .kept(current)
        }
        if let current, current.syncState != .synced {
            guard current.syncState != .deleted else { return .kept(current) }
            // The app's pending change stays, on top of what the server holds now.
            let server = try copy.decoded()
            var record = current
            record.object = PendingChange(current).applied(to: server.object)
            record.snapshot = server.snapshot ?? server.object
            if record != current {
                try upsert(record)
                try dropHTTPCacheEntry(collection: collection, id: copy.id)
            }
            return .kept(record)
        }
        var unchanged = false
        if copy.etag == nil, let current { unchanged = try Self.holds(current, copy) }
        if !unchanged {
            var written = copy
            // A copy without an ETag never drops the one the record kept.
            if written.etag == nil { written.etag = current?.etag }
            try upsert(encoded: written)
        }
        switch source {
        case .detailRead(.store(let entry, let key)?):
            // The record's own GET: its entry describes what the store holds (the copy, or a
            // record that already holds every field of it).
            try storeHTTPCacheEntry(entry, key: key)
        case .detailRead:
            try dropHTTPCacheEntry(collection: collection, id: copy.id)
        case .listAnswer, .pullPage, .quarantine:
            if !unchanged, !absent.contains(.cacheEntry) { try dropHTTPCacheEntry(collection: collection, id: copy.id) }
        }
        return unchanged ? .unchanged : .written
    }

    /// The pending record, under another id than `copy`'s, of the entity `copy` is: the one the
    /// server echoes the client's id of (`clientID`), or the one whose id is the same UUID spelled
    /// another way (a server that prints UUIDs in lower case). Only a record whose create was
    /// already sent counts: another client's row may echo an id this store uses for an entity the
    /// server never saw. Nil for none.
    private func sentCreate(of copy: EncodedRecord, echoing clientID: String?) throws -> StoredRecord? {
        var candidates = [clientID].compactMap { $0 }
        if let uuid = UUID(uuidString: copy.id) { candidates += [uuid.uuidString, uuid.uuidString.lowercased()] }
        for id in candidates where id != copy.id {
            guard let pending = try fetch(collection: copy.collection, id: id), pending.syncState != .synced,
                try outboxEntries(collection: copy.collection, entityID: id).contains(where: {
                    $0.operation == .create && $0.attempts > 0
                })
            else { continue }
            return pending
        }
        return nil
    }

    /// Whether `record` already holds what `copy` brings: its server snapshot (its object when it
    /// keeps none) has every field of `copy`'s snapshot with the same value, and its object every
    /// key of `copy`'s object (an object written by an older model, which lacks a key the app
    /// reads now, is rewritten).
    private static func holds(_ record: StoredRecord, _ copy: EncodedRecord) throws -> Bool {
        let stored = record.snapshot ?? record.object
        let object = try EncodedRecord.parseObject(copy.object)
        let fields: JSONObject
        switch copy.snapshot {
        case .encoded(let text): fields = try EncodedRecord.parseObject(text)
        case .sameAsObject, .absent: fields = object
        }
        return fields.allSatisfy { stored[$0.key] == $0.value } && object.keys.allSatisfy { record.object[$0] != nil }
    }
}

/// What the store holds for the records of a page, looked up with one query per 500 ids rather
/// than one per row: which have a record, which have an HTTP-cache entry.
struct StoredPresence {
    /// What is not stored for one record.
    struct Absent: OptionSet {
        let rawValue: UInt8
        /// No record under the id.
        static let record = Absent(rawValue: 1)
        /// No HTTP-cache entry for the record.
        static let cacheEntry = Absent(rawValue: 2)
    }

    /// The ids of `collection` that have a record.
    let records: Set<String>
    /// The ids of `collection` that have an HTTP-cache entry.
    let cacheEntries: Set<String>

    /// What is not stored for record `id`.
    func absent(_ id: String) -> Absent {
        var absent: Absent = []
        if !records.contains(id) { absent.insert(.record) }
        if !cacheEntries.contains(id) { absent.insert(.cacheEntry) }
        return absent
    }
}

extension StorageTransaction {
    /// Which of `ids` of `collection` have a record and which an HTTP-cache entry, in two bulk
    /// reads (``syncStates(collection:ids:)``), for ``storeServerCopy(_:source:reader:absent:)``.
    func presence(of ids: [String], collection: String) throws -> StoredPresence {
        let records = try syncStates(collection: collection, ids: ids)
        let keys = ids.map { HTTPCache.recordKey(collection: collection, id: $0) }
        let entries = try syncStates(collection: HTTPCache.collection, ids: keys)
        var cached: Set<String> = []
        for (id, key) in zip(ids, keys) where entries[key] != nil { cached.insert(id) }
        return StoredPresence(records: Set(records.keys), cacheEntries: cached)
    }
}
