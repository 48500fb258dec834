import Foundation

extension Synchronizer {
    /// Stores one page in one transaction, each row through the one record-write function
    /// (``StorageTransaction/writeRecord(_:)``): a missing or synced record takes
    /// the server's object (its raw JSON as the snapshot) unless it already holds that version; a
    /// record with unsynced changes is kept as it is, and so is one whose write's answer was stored
    /// after the pull began (`reader`): the page is older. Each element is decoded once and written
    /// to text before the transaction.
    func merge(
        page elements: [JSON], request: NetworkRequest, seen: inout Set<String>, report: inout SynchronizationReport,
        reader: DeliveryLog.Reader, quarantine: inout QuarantineUse, fromQuarantine: Bool = false,
        caching: PageCaching? = nil
    ) async throws -> PageOutcome {
        var entries: [EncodedRecord] = []
        // The client id each entry echoes under the identity key, when that is not `id`.
        var clientIDs: [String?] = []
        var deleted: [String] = []
        // Each entry's and each deletion's position in the page.
        var (entryPositions, deletedPositions): ([Int], [Int]) = ([], [])
        var skipped: [Int] = []
        var unreadableRows: [UnreadableRow] = []
        var respelled: [String] = []
        entries.reserveCapacity(elements.count)
        // The page's objects made into records at once (one decode and one encode for the page);
        // an element that fails sends every one through encodedRecord, which names its failure.
        let objects = elements.enumerated().compactMap { index, element in
            element.objectValue.map { (index, $0) }
        }.filter { index, object in
            guard case .flag(let flag)? = configuration.incremental?.deletions else { return true }
            return object[flag] != .bool(true)
        }
        var made: [Int: EncodedRecord] = [:]
        if let records = Self.encodedRecords(objects.map(\.1), collection: collection, coding: shape.coding) {
            made.reserveCapacity(records.count)
            for ((index, _), record) in zip(objects, records) { made[index] = record }
        }
        for (index, element) in elements.enumerated() {
            if case .flag(let flag)? = configuration.incremental?.deletions, element[flag] == .bool(true) {
                // Deleted on the server: only its id matters.
                if let id = Self.idText(element[configuration.identityKey]) ?? Self.idText(element["id"]) {
                    deleted.append(Self.storedID(id))
                    deletedPositions.append(index)
                    if Self.storedID(id) != id { respelled.append(id) }
                } else {
                    var failure = DepotError(.decoding, "list element \(index): a deleted entity without an id")
                    failure.request = summary(of: request)
                    report.errors.append(failure)
                }
                continue
            }
            let rawID = Self.idText(element[configuration.identityKey]) ?? Self.idText(element["id"])
            if configuration.prune, let id = Self.idText(element["id"]) { seen.insert(Self.storedID(id)) }
            do {
                guard let raw = element.objectValue else {
                    throw DepotError(.decoding, "expected an object, found \(element.kindName)")
                }
                let record = try made[index] ?? Self.encodedRecord(raw, collection: collection, coding: shape.coding)
                if configuration.prune { seen.insert(record.id) }
                entries.append(record)
                clientIDs.append(
                    configuration.identityKey == "id"
                        ? nil : Self.idText(element[configuration.identityKey]).map(Self.storedID))
                entryPositions.append(index)
                // A row kept under another spelling of its id (before ids were canonical) goes too.
                if let rawID, rawID != record.id { respelled.append(rawID) }
            } catch {
                var failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                failure.message = (fromQuarantine ? "kept row: " : "list element \(index): ") + failure.message
                failure.request = failure.request ?? summary(of: request)
                // Kept under the server's id (a write's answer, a read or a deletion of it releases
                // it), not under the id the app sent (`client_id`) that the server echoes.
                let row = UnreadableRow(
                    collection: collection, id: (Self.idText(element["id"]) ?? rawID).map(Self.storedID), raw: element,
                    error: failure, firstSeen: Date())
                if !fromQuarantine {
                    // A row kept from an earlier pull and still unreadable was reported then.
                    report.errors.append(failure)
                    report.unreadable.append(row)
                }
                unreadableRows.append(row)
                skipped.append(index)
            }
        }
        if !unreadableRows.isEmpty { quarantine.inUse = true }
        // The page's cache entry, written with its records: kept only for a page merged whole
        // (decided in the transaction, which knows which rows the record-write rule kept out).
        var cacheWrite: (key: String, entry: HTTPCacheEntry?)?
        switch caching {
        case .store(let entry, let key)?: cacheWrite = (key, skipped.isEmpty ? entry : nil)
        case .forget(let key)?: cacheWrite = (key, nil)
        case .notModified, nil: break
        }
        guard !entries.isEmpty || !deleted.isEmpty || !unreadableRows.isEmpty || cacheWrite != nil else {
            return PageOutcome(unreadable: skipped)
        }
        let (collection, page, gone, unreadable) = (self.collection, entries, deleted, skipped)
        let (rows, releasing, spellings) = (unreadableRows, quarantine.inUse, respelled)
        let (pageEntry, positions, deletionPositions) = (cacheWrite, entryPositions, deletedPositions)
        let (echoed, serverKeys) = (clientIDs, shape.serverOwnedKeys)
        return try await storage.transaction { tx in
            var outcome = PageOutcome(unreadable: unreadable)
            // Kept raw, out of the app's reads, and read again on the next pull.
            try tx.quarantine(rows, now: Date())
            // A readable version of a kept row (or its deletion) supersedes it.
            if releasing { try tx.releaseQuarantine(collection: collection, ids: gone + page.map(\.id) + spellings) }
            let states = try tx.syncStates(collection: collection, ids: gone)
            // One look at the store's sequence spares asking row by row when nothing was delivered.
            let delivered = try reader.anyDeliverySince(in: tx) ? reader : nil
            for (id, position) in zip(gone, deletionPositions) {
                guard let state = states[id] else { continue }
                switch try tx.writeRecord(
                    .pulledDeletion(collection: collection, id: id, state: state, reader: delivered))
                {
                case .removed: outcome.removed += 1
                case .conflicted:
                    outcome.conflicts += 1  // a local change the server's deletion must not erase
                    outcome.unreadable.append(position)
                default: outcome.unreadable.append(position)  // a newer delivery: the row is not merged
                }
            }
            // What the store holds for the page's records, read in bulk, not row by row.
            let presence = try tx.presence(of: page.map(\.id), collection: collection)
            // The one record-write rule: a pending local change stays (a conflict to report), a
            // write's answer stored since the pull began is newer than this page, and a row the
            // store already holds keeps its ETag and cache entry. A row kept out holds the cursor
            // and the page's validator. Rows it has nothing to weigh go in bulk (writePage).
            var copies: [ServerCopy] = []
            copies.reserveCapacity(page.count)
            for (entry, clientID) in zip(page, echoed) {
                copies.append(
                    ServerCopy(
                        record: entry, reader: delivered, clientID: clientID, absent: presence.absent(entry.id),
                        serverOwnedKeys: serverKeys))
            }
            for (write, position) in zip(try tx.writePage(copies, fromQuarantine: fromQuarantine), positions) {
                switch write {
                case .written, .unchanged, .removed, .conflicted: outcome.pulled += 1
                case .kept(let current?) where current.syncState != .synced:
                    outcome.conflicts += 1
                    outcome.unreadable.append(position)
                case .kept: outcome.unreadable.append(position)
                }
            }
            if let pageEntry {
                let whole = outcome.unreadable.isEmpty
                // Its digest is taken over the records as stored now: a 304 to its validator
                // later confirms them only while no road wrote any of them since.
                try tx.storeListEntry(whole ? pageEntry.entry : nil, key: pageEntry.key, collection: collection)
            }
            return outcome
        }
    }

    /// A server object as a synced record, in one pass each way: its JSON text is written once
    /// (and kept as the snapshot unless the entity writes the same text), the entity is decoded
    /// from that text and encoded straight to the record's text (keys it does not model dropped).
    static func encodedRecord(
        _ raw: JSONObject, collection: String, coding: EntityCoding = .default
    ) throws -> EncodedRecord {
        let rawData = try JSONWriter.write(.object(raw))
        let entity = try JSONMapping.entity(Entity.self, from: rawData, coding: coding)
        let object = try EncodedRecord.encode(entity, coding: coding)
        let rawText = String(decoding: rawData, as: UTF8.self)
        return EncodedRecord(
            unchecked: collection, id: entity.id.pathComponent, object: object, syncState: .synced,
            snapshot: rawText == object ? .sameAsObject : .encoded(rawText), etag: nil)
    }

    /// Removes synced records whose id the pull did not see, walking them a page at a time; a
    /// record that became unsynced meanwhile stays, and so does one a write's answer stored
    /// after the pull began (`reader`): the server made it after the pull's pages. The quarantined
    /// rows of ids the pull did not see go too.
    func prune(
        keeping seen: Set<String>, _ report: inout SynchronizationReport, reader: DeliveryLog.Reader
    ) async throws {
        let collection = self.collection
        // A row kept from an earlier read of an id the server no longer lists goes as its record does.
        let gone = try await Quarantine.rows(of: collection, in: storage).compactMap(\.id).filter { !seen.contains($0) }
        if !gone.isEmpty {
            try await storage.transaction { tx in try tx.releaseQuarantine(collection: collection, ids: gone) }
        }
        var after: String?
        while true {
            try checkCancellation()
            let synced = try await storage.fetch(
                collection: collection, syncStates: [.synced], after: after, limit: 1000
            )
            guard let last = synced.last else { return }
            after = last.id
            let doomed = synced.map(\.id).filter { !seen.contains($0) }
            guard !doomed.isEmpty else { continue }
            report.pruned += try await storage.transaction { tx in
                var removed = 0
                for id in doomed
                where try tx.writeRecord(.prune(collection: collection, id: id, reader: reader)) == .removed {
                    removed += 1
                }
                return removed
            }
        }
    }
}
