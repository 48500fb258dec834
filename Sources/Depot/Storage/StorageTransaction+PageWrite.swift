import Foundation

extension StorageTransaction {
    /// ``writeRecord(_:)`` for each server copy of a pull page, in order, as
    /// ``RecordSource/pullPage(_:)`` (``RecordSource/quarantine(_:)`` with `fromQuarantine`), with
    /// the same outcome row by row. A copy the rule has nothing to weigh against (see
    /// ``isPlainInsert(_:pendingElsewhere:)``) is written as it is, and consecutive ones are written together
    /// (``RecordTransaction/upsert(encodedRecords:)``): a page into an empty store costs one
    /// statement per many rows rather than one per row. Those are written before any other copy
    /// goes through the rule, so it sees the store as the row-by-row writes would leave it.
    ///
    /// - Returns: what was done to each copy, in the order of `copies`.
    func writePage(_ copies: [ServerCopy], fromQuarantine: Bool) throws -> [RecordWrite] {
        let pendingElsewhere = try pendingOtherIDs(of: copies)
        var writes: [RecordWrite] = []
        writes.reserveCapacity(copies.count)
        var inserts: [EncodedRecord] = []
        for copy in copies {
            if Self.isPlainInsert(copy, pendingElsewhere: pendingElsewhere) {
                inserts.append(copy.record)
                writes.append(.written)
                continue
            }
            if !inserts.isEmpty {
                try upsert(encodedRecords: inserts)
                inserts.removeAll(keepingCapacity: true)
            }
            writes.append(try writeRecord(fromQuarantine ? .quarantine(copy) : .pullPage(copy)))
        }
        if !inserts.isEmpty { try upsert(encodedRecords: inserts) }
        return writes
    }

    /// Whether the record-write rule, given `copy`, can only store it as it is: the page's bulk
    /// look-up found neither a record nor an HTTP-cache entry under its id (nothing pending to
    /// keep, no `ETag` to carry over, no entry to drop), no write's answer was delivered since the
    /// pull began (no `reader`), and no record under another id the entity may be stored by (the
    /// client id the copy echoes, its UUID spelled another way) has a pending change: only such a
    /// record keeps the copy from being stored under its own id. A page's writes leave the set of
    /// pending records as it was (a pending record the page reaches stays pending), so the set
    /// read before the page holds for every row of it.
    static func isPlainInsert(_ copy: ServerCopy, pendingElsewhere: Set<String>) -> Bool {
        guard copy.absent.contains([.record, .cacheEntry]), copy.reader == nil else { return false }
        return otherIDs(of: copy).allSatisfy {
            !pendingElsewhere.contains(MovedIDs.key(collection: copy.record.collection, id: $0))
        }
    }

    /// The ids, other than its own, a record of the entity `copy` is may be stored under: the
    /// client id it echoes, and, for a UUID, its upper- and lower-case spellings (as
    /// `sentCreate` looks for them).
    static func otherIDs(of copy: ServerCopy) -> [String] {
        var ids = copy.clientID.map { [$0] } ?? []
        // A UUID's text takes 36 bytes (the parse stops at a NUL): a shorter id skips it.
        if copy.record.id.utf8.count >= 36, let uuid = UUID(uuidString: copy.record.id) {
            ids += [uuid.uuidString, uuid.uuidString.lowercased()]
        }
        return ids.filter { $0 != copy.record.id }
    }

    /// Which of the other ids of the copies that may be plain inserts have a record with a
    /// pending change, as ``MovedIDs`` keys (collection and id), read in one look-up per
    /// collection.
    private func pendingOtherIDs(of copies: [ServerCopy]) throws -> Set<String> {
        var asked: [String: [String]] = [:]
        for copy in copies where copy.absent.contains([.record, .cacheEntry]) && copy.reader == nil {
            let ids = Self.otherIDs(of: copy)
            if !ids.isEmpty { asked[copy.record.collection, default: []] += ids }
        }
        var pending: Set<String> = []
        for (collection, ids) in asked {
            for (id, state) in try syncStates(collection: collection, ids: ids) where state != .synced {
                pending.insert(MovedIDs.key(collection: collection, id: id))
            }
        }
        return pending
    }
}
