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
    /// - A record with a pending local change (not synced) stays as it is: the outbox will bring
    ///   the server up to date, and a read never undoes the app's edit. So does a record a write's
    ///   answer was stored for since `reader`'s read began: the copy is older.
    /// - A copy without an `ETag` (a list answer, a pull page) of a synced record whose snapshot
    ///   already holds every field of the copy with the same value is the stored version: nothing
    ///   is written, so the record keeps its write `ETag` (a later `update` still sends
    ///   `If-Match`), its fuller snapshot (a list's summary never replaces a detail answer's
    ///   fields) and its cache entry (a `304` to its validator still describes what is stored).
    /// - Otherwise the copy is stored. The record's HTTP-cache entry is written only by its own
    ///   `GET` (``RecordSource/detailRead(_:)``, the stored version's or not) and dropped by any
    ///   other source that wrote the record, since the validators it kept no longer describe what
    ///   the store holds.
    ///
    /// - Parameter absent: what a caller that looked a whole page up at once (``presence(of:)``)
    ///   knows is not stored for this record, so the rule does not ask again row by row.
    /// - Returns: what was done.
    func storeServerCopy(
        _ copy: EncodedRecord, source: RecordSource, reader: DeliveryLog.Reader? = nil,
        absent: StoredPresence.Absent = []
    ) throws -> RecordWrite {
        let collection = copy.collection
        let current = absent.contains(.record) ? nil : try fetch(collection: collection, id: copy.id)
        if let current, current.syncState != .synced { return .kept(current) }
        if let reader, try reader.deliveredSince(collection: collection, id: copy.id, in: self) {
            return .kept(current)
        }
        var unchanged = false
        if copy.etag == nil, let current { unchanged = try Self.holds(current, copy) }
        if !unchanged { try upsert(encoded: copy) }
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
