import Foundation

extension StorageTransaction {
    /// The one function through which everything the store knows about a record changes, in the
    /// caller's transaction: the record and its sync state, its server snapshot and write `ETag`,
    /// its HTTP-cache entry, the collection's list entries, its quarantine row, its delivery mark
    /// and its id move. `source` says where the write came from and carries what that road knows.
    ///
    /// A server's copy (``RecordSource/detailRead(_:_:)``, ``RecordSource/listAnswer(_:)``,
    /// ``RecordSource/pullPage(_:)``, ``RecordSource/quarantine(_:)``):
    /// - A record a write's answer was stored for since the copy's read began stays as it is: the
    ///   copy is older (the delivery mark, kept in the store, so every process applies it).
    /// - A pending local delete stays as it is. Any other record with a pending local change (not
    ///   synced) takes the copy with that change on top (``PendingChange``): the copy becomes its
    ///   snapshot, its object the copy with the keys the app changed since its last snapshot as
    ///   the app set them (never a key the server owns, ``ServerCopy/serverOwnedKeys``: the copy's
    ///   value shows for it); its sync state and write `ETag` stay (the outbox entries that carry the
    ///   change were made against that `ETag`, so a conflict is still seen as one).
    /// - A list or page summary without an `ETag` (a list answer, a pull page, a quarantined row)
    ///   of a synced record whose snapshot already holds every field of the copy with the same
    ///   value is the stored version: nothing is written, so the record keeps its fuller snapshot
    ///   (a list's summary never replaces a detail answer's fields) and its cache entry (a `304`
    ///   to its validator still describes what is stored). A detail answer (the record's own
    ///   `GET`) is the record whole, `ETag` or not: a field it leaves out goes; nothing is written
    ///   only when the stored record is exactly the copy.
    /// - Otherwise the copy is stored. Its write `ETag` is the copy's, or, for a copy without one,
    ///   the one the record kept: a list's copy never drops it, so a later `update` still sends
    ///   `If-Match` (at worst a stale one, which the server refuses as a conflict, never a silent
    ///   overwrite).
    /// - A copy that names, under the key the server echoes the client's id with, or as the same
    ///   UUID spelled another way, a record of another id with a pending local change whose
    ///   create was sent (a create whose answer was lost: the server made the entity under its
    ///   own id or spelling, the store does not know it yet) writes nothing: that record, the
    ///   entity as the app has it, stays under its id with its pending change on top of the copy
    ///   (as above), and its outbox entries bring the server up to date.
    ///
    /// A write's answer (``RecordSource/writeAnswer(_:)``) brings the record's write `ETag`; an
    /// answer without one (a batch push's element, a `204` without an `ETag`) leaves the version
    /// unknown (``ETag/unknownVersion``) when the record held one, so the next conditional write
    /// reads the server's copy before it goes, never sends without `If-Match` over a version the
    /// app has not seen.
    ///
    /// The record's HTTP-cache entry is written only by its own `GET` (200 or 304) and dropped by
    /// any other write of the record: the validators it kept no longer describe what the store
    /// holds. A local write or a removal needs no look-up for it: an entry goes with its record,
    /// so a record the store did not hold has none. The collection's list and page entries are
    /// made unusable by any write: a write's answer or a deletion renews the collection's list
    /// token; a local write leaves a pending record, which keeps every list entry of the
    /// collection from being used until its answer renews the token (no statement at the write);
    /// a read's copy changes the record the entry's digest (``storeListEntry(_:key:collection:)``)
    /// was taken over. A write's answer also notes the delivery and releases the entity's
    /// quarantine row; a removal forgets the id move its id kept from an older entity. A pending
    /// change the app gave up (``RecordSource/restore(collection:id:)``) puts the server's last
    /// version back as a write of the collection: the record's entry goes and the collection's
    /// list token is renewed, since no answer will renew it; so does a refused remote-first write
    /// taken back (``RecordSource/takeBack(_:)``).
    ///
    /// - Returns: what was done.
    @discardableResult
    func writeRecord(_ source: RecordSource) throws -> RecordWrite {
        switch source {
        case .local(let record, let replacing):
            try upsert(record)
            // A record the store did not hold had no entry (entries go with their records).
            if replacing { try dropHTTPCacheEntry(collection: record.collection, id: record.id) }
            return .written
        case .takeBack(let record):
            try upsert(record)
            try putBack(collection: record.collection, id: record.id)
            return .written
        case .localRemoval(let collection, let id), .gone(let collection, let id):
            try delete(collection: collection, id: id)
            // The server's lists never held a record it never saw, or no longer hold one it lost.
            try forgetRemoved(collection: collection, id: id)
            return .removed
        case .writeAnswer(let answer):
            let ids = [answer.sentID] + (answer.answer.map { [$0.id] } ?? [])
            // A row of the entity a pull could not read is older than this answer.
            try releaseQuarantine(collection: answer.collection, ids: ids)
            // A write's answer is not a GET's: the stored validators no longer describe the record,
            // and the collection's lists may no longer hold it as they were (RFC 9111 §4.4).
            for id in ids { try dropHTTPCacheEntry(collection: answer.collection, id: id) }
            try invalidateLists(collection: answer.collection)
            let written = try storeAnswerRecord(answer)
            // Noted in the store, so a read that began before it, in any process, never overwrites it.
            // Noted last: the store's delivery sequence is one row every answer reads and moves on, so
            // a store that locks what a transaction touches (PostgreSQL) holds it only until the commit.
            try noteDelivery(collection: answer.collection, ids: ids)
            return written
        case .notModified(let key, let refreshed):
            // Only the entry the answer renewed: one dropped since the request left (a write's
            // answer, a delete, a bound's eviction) or replaced by a newer answer's stays as it is.
            guard let stored = try fetch(collection: HTTPCache.collection, id: key),
                let entry = HTTPCacheEntry(object: stored.object),
                entry.etag == refreshed.etag, entry.etag != nil || entry.lastModified == refreshed.lastModified
            else { return .unchanged }
            try storeHTTPCacheEntry(refreshed, key: key)
            return .unchanged
        case .detailRead(let copy, let caching):
            let (write, rewrote) = try mergeServerCopy(copy, whole: true)
            switch (write, caching) {
            case (.kept, _):
                if rewrote { try dropHTTPCacheEntry(collection: copy.record.collection, id: copy.record.id) }
            case (_, .store(let entry, let key)?):
                // The record's own GET: its entry describes what the store holds (the copy, or a
                // record that already holds every field of it).
                try storeHTTPCacheEntry(entry, key: key)
            default: try dropHTTPCacheEntry(collection: copy.record.collection, id: copy.record.id)
            }
            return write
        case .listAnswer(let copy), .pullPage(let copy), .quarantine(let copy):
            let (write, rewrote) = try mergeServerCopy(copy, whole: false)
            let drops: Bool
            switch write {
            case .kept: drops = rewrote
            case .written: drops = !copy.absent.contains(.cacheEntry)
            default: drops = false
            }
            if drops { try dropHTTPCacheEntry(collection: copy.record.collection, id: copy.record.id) }
            return write
        case .pulledDeletion(let collection, let id, let state, let reader):
            // A newer delivery: the row is not merged.
            if try reader?.deliveredSince(collection: collection, id: id, in: self) == true { return .kept(nil) }
            // A local change the server's deletion must not erase.
            guard state == .synced else { return .conflicted }
            try delete(collection: collection, id: id)
            try forgetRemoved(collection: collection, id: id)
            try invalidateLists(collection: collection)
            return .removed
        case .prune(let collection, let id, let reader):
            guard try fetch(collection: collection, id: id)?.syncState == .synced,
                try !reader.deliveredSince(collection: collection, id: id, in: self)
            else { return .kept(nil) }
            try delete(collection: collection, id: id)
            try forgetRemoved(collection: collection, id: id)
            return .removed
        case .restore(let collection, let id):
            return try restore(collection: collection, id: id)
        case .unreadableAnswer(let collection, let id, let raw, let error, let etag):
            return try storeUnreadableAnswer(collection: collection, id: id, raw: raw, error: error, etag: etag)
        }
    }

    /// ``RecordSource/restore(collection:id:)``: the record put back (``restoreRecord(collection:id:)``)
    /// is a write of the collection like any other: its cache entry and the collection's lists no
    /// longer describe it.
    private func restore(collection: String, id: String) throws -> RecordWrite {
        let written = try restoreRecord(collection: collection, id: id)
        if written == .written { try putBack(collection: collection, id: id) }
        return written
    }

    /// What goes with a record put back by the app (a restore, a refused write taken back): no
    /// answer follows to renew the collection's list token, so it is renewed here, and the
    /// record's cache entry goes.
    private func putBack(collection: String, id: String) throws {
        try dropHTTPCacheEntry(collection: collection, id: id)
        try invalidateLists(collection: collection)
    }

    /// The record part of a restore: a record with a pending change goes back to its snapshot,
    /// synced (its write `ETag` is the snapshot's); one the server never had goes, as a local
    /// removal does (the server's lists never held it). A synced record, or none, is left as it is.
    private func restoreRecord(collection: String, id: String) throws -> RecordWrite {
        guard var record = try fetch(collection: collection, id: id), record.syncState != .synced else {
            return .unchanged
        }
        guard let snapshot = record.snapshot else {
            try delete(collection: collection, id: id)
            try forgetRemoved(collection: collection, id: id)
            return .removed
        }
        (record.object, record.syncState) = (snapshot, .synced)
        try upsert(record)
        return .written
    }

    /// ``RecordSource/unreadableAnswer(collection:id:raw:error:etag:)``: a write's answer all the
    /// same. The server's version is kept in the quarantine (a readable version releases it); the
    /// record's cache entry and the collection's lists go; the delivery is noted. The record keeps
    /// the last version the app could read: with later writes of the entity waiting, they stay on
    /// top and go next against the server's version (`etag`, a pending create becoming an
    /// update); with none, it goes back to its snapshot (``restoreRecord(collection:id:)``).
    private func storeUnreadableAnswer(
        collection: String, id: String, raw: JSON, error: DepotError, etag: String?
    ) throws -> RecordWrite {
        try quarantine([UnreadableRow(collection: collection, id: id, raw: raw, error: error)], now: Date())
        let written: RecordWrite
        if try outboxEntries(collection: collection, entityID: id).isEmpty {
            written = try restoreRecord(collection: collection, id: id)
        } else if var record = try fetch(collection: collection, id: id), record.syncState != .synced {
            record.etag = ETag.written(answer: etag, held: record.etag)
            if record.syncState == .created { record.syncState = .updated }
            try upsert(record)
            written = .kept(record)
        } else {
            written = .unchanged
        }
        try dropHTTPCacheEntry(collection: collection, id: id)
        try invalidateLists(collection: collection)
        // Noted last, as a write's answer notes it (the store's delivery sequence is one row).
        try noteDelivery(collection: collection, ids: [id])
        return written
    }

    /// What goes with a removed record: its cache entry, the id move its id may have kept
    /// from an older entity the server gave another id (the id is free again: a later write under
    /// it is not the older entity's), and the moves to it from ids Depot made
    /// (``forgetTemporaryMoves(collection:to:)``).
    private func forgetRemoved(collection: String, id: String) throws {
        try dropHTTPCacheEntry(collection: collection, id: id)
        try forgetIDMove(collection: collection, id: id)
        try forgetTemporaryMoves(collection: collection, to: id)
    }

    /// The record part of a server's copy: what the store holds for it after the rule, and
    /// whether a pending record was rewritten (its cache entry then goes). `whole`: the copy is
    /// the record's own detail answer, which replaces what is stored rather than merging into it.
    private func mergeServerCopy(_ server: ServerCopy, whole: Bool) throws -> (RecordWrite, rewrote: Bool) {
        let copy = server.record
        let collection = copy.collection
        let current = server.absent.contains(.record) ? nil : try fetch(collection: collection, id: copy.id)
        // A copy of an entity the store does not hold under this id may be one it holds under another.
        if current == nil, let pending = try sentCreate(of: copy, echoing: server.clientID) {
            // The app's pending change stays, on top of what the server holds (a field only the
            // server fills comes from it), under the id the store knows the entity by.
            return try keepPending(pending, over: copy, serverOwnedKeys: server.serverOwnedKeys)
        }
        if let reader = server.reader, try reader.deliveredSince(collection: collection, id: copy.id, in: self) {
            return (.kept(current), false)
        }
        if let current, current.syncState != .synced {
            guard current.syncState != .deleted else { return (.kept(current), false) }
            // The app's pending change stays, on top of what the server holds now.
            return try keepPending(current, over: copy, serverOwnedKeys: server.serverOwnedKeys)
        }
        if copy.etag == nil, let current, try Self.holds(current, copy, exactly: whole) { return (.unchanged, false) }
        var written = copy
        // A copy without an ETag never drops the one the record kept.
        if written.etag == nil { written.etag = current?.etag }
        try upsert(encoded: written)
        return (.written, false)
    }

    /// Keeps `current`, a record with a pending local change, with that change on top of `copy`:
    /// the copy becomes its snapshot, its object the copy with the keys the app set over it (the
    /// server's own keys, `serverOwnedKeys`, never among them).
    private func keepPending(
        _ current: StoredRecord, over copy: EncodedRecord, serverOwnedKeys: Set<String>
    ) throws -> (RecordWrite, rewrote: Bool) {
        let decoded = try copy.decoded()
        var record = current
        // A copy under another id (a create whose answer was lost): the fields naming the id the
        // store knows the entity by stay the app's, server-owned or not.
        let serverKeys =
            copy.id == current.id
            ? serverOwnedKeys : serverOwnedKeys.filter { MovedIDs.idText(current.object[$0]) != current.id }
        record.object = PendingChange(current, serverOwnedKeys: serverKeys).applied(to: decoded.object)
        record.snapshot = decoded.snapshot ?? decoded.object
        guard record != current else { return (.kept(record), false) }
        try upsert(record)
        return (.kept(record), true)
    }

    /// Stores a list or page entry after its records were written (nil: forgets the entry), with
    /// the digest of those records as the store holds them now: a record written since by any
    /// road (another account's copy, a detail read's fuller one, a pending edit) makes the entry
    /// unusable (``listedRecords(_:collection:)``), so neither a `304` nor a fresh entry confirms
    /// what the list never described.
    func storeListEntry(_ entry: HTTPCacheEntry?, key: String, collection: String) throws {
        var written = entry
        if let ids = entry?.ids {
            written?.digest = HTTPCache.digest(of: try ids.compactMap { try fetch(collection: collection, id: $0) })
        }
        try storeHTTPCacheEntry(written, key: key)
    }

    /// The records a list or page entry named, in its order, when each is stored and together
    /// they are still what the entry's digest was taken over; nil otherwise (an entry without a
    /// digest included).
    func listedRecords(_ entry: HTTPCacheEntry, collection: String) throws -> [StoredRecord]? {
        guard let ids = entry.ids, let digest = entry.digest else { return nil }
        var records: [StoredRecord] = []
        records.reserveCapacity(ids.count)
        for id in ids {
            guard let record = try fetch(collection: collection, id: id) else { return nil }
            records.append(record)
        }
        return HTTPCache.digest(of: records) == digest ? records : nil
    }

    /// The pending record, under another id than `copy`'s, of the entity `copy` is: the one the
    /// server echoes the client's id of (`clientID`), or the one whose id is the same UUID spelled
    /// another way (a server that prints UUIDs in lower case). Only a record whose create was
    /// already sent counts: another client's row may echo an id this store uses for an entity the
    /// server never saw. Nil for none.
    private func sentCreate(of copy: EncodedRecord, echoing clientID: String?) throws -> StoredRecord? {
        // A UUID's text takes 36 bytes (the parse stops at a NUL): a shorter id skips it.
        let mayBeUUID = copy.id.utf8.count >= 36
        guard clientID != nil || mayBeUUID else { return nil }
        var candidates = [clientID].compactMap { $0 }
        if mayBeUUID, let uuid = UUID(uuidString: copy.id) {
            candidates += [uuid.uuidString, uuid.uuidString.lowercased()]
        }
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
    /// reads now, is rewritten). `exactly`: no other field or key either (a detail answer, which
    /// is the record whole).
    private static func holds(_ record: StoredRecord, _ copy: EncodedRecord, exactly: Bool) throws -> Bool {
        let stored = record.snapshot ?? record.object
        let object = try EncodedRecord.parseObject(copy.object)
        let fields: JSONObject
        switch copy.snapshot {
        case .encoded(let text): fields = try EncodedRecord.parseObject(text)
        case .sameAsObject, .absent: fields = object
        }
        if exactly {
            return stored == fields && record.object.count == object.count
                && object.keys.allSatisfy { record.object[$0] != nil }
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
    /// reads (``syncStates(collection:ids:)``), for ``writeRecord(_:)``.
    func presence(of ids: [String], collection: String) throws -> StoredPresence {
        let records = try syncStates(collection: collection, ids: ids)
        let keys = ids.map { HTTPCache.recordKey(collection: collection, id: $0) }
        let entries = try syncStates(collection: HTTPCache.collection, ids: keys)
        var cached: Set<String> = []
        for (id, key) in zip(ids, keys) where entries[key] != nil { cached.insert(id) }
        return StoredPresence(records: Set(records.keys), cacheEntries: cached)
    }
}
