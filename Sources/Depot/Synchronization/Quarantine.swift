import Foundation

/// Where pulled rows the app cannot read are kept: one synced record per row, in a collection of
/// Depot's own (`__depot_quarantine`), so they survive restarts on every storage, stay out of the
/// app's reads, and are read again on each pull (``Synchronizer/pull(_:progress:)``): a row the
/// app can read now (after an update of its model) is merged like any pulled row, and leaves.
enum Quarantine {
    static let collection = "__depot_quarantine"

    /// The record id of a row: by its id when it names one, else by its text's hash.
    static func key(collection: String, id: String?, raw: JSON) -> String {
        if let id { return MovedIDs.key(collection: collection, id: id) }
        // The hash of the row's compact text.
        let hash = FNV1a.hash((try? raw.serialized()) ?? Data())
        return "\(collection.utf8.count):\(collection)#" + String(hash, radix: 16)
    }

    /// The quarantine record of `row`, first seen at `firstSeen`.
    static func record(_ row: UnreadableRow, firstSeen: Date) -> StoredRecord {
        var object: JSONObject = [
            "collection": .string(row.collection), "raw": row.raw, "error": .string(row.error.message),
            "firstSeen": .double(firstSeen.timeIntervalSince1970),
        ]
        if let id = row.id { object["id"] = .string(id) }
        return StoredRecord(
            collection: collection, id: key(collection: row.collection, id: row.id, raw: row.raw), object: object,
            syncState: .synced)
    }

    /// The row a quarantine record keeps; nil for a record that is not one.
    static func row(_ record: StoredRecord) -> UnreadableRow? {
        guard case .string(let collection)? = record.object["collection"], let raw = record.object["raw"] else {
            return nil
        }
        let message = record.object["error"]?.stringValue ?? "unreadable"
        var row = UnreadableRow(
            collection: collection, id: record.object["id"]?.stringValue, raw: raw,
            error: DepotError(.decoding, message))
        if let seconds = record.object["firstSeen"]?.doubleValue, seconds.isFinite {
            row.firstSeen = Date(timeIntervalSince1970: seconds)
        }
        return row
    }

    /// The quarantined rows of `collection`, oldest first.
    static func rows(of collection: String, in storage: Storage) async throws -> [UnreadableRow] {
        try await storage.fetch(collection: Self.collection, matching: Criteria(["collection": .string(collection)]))

            .compactMap(row).sorted { ($0.firstSeen ?? .distantPast) < ($1.firstSeen ?? .distantPast) }
    }
}

extension StorageTransaction {
    /// Keeps `rows` in the quarantine, each under its first-seen time (`now` for a row not
    /// kept before); replaces the raw text and error of one kept before.
    func quarantine(_ rows: [UnreadableRow], now: Date) throws {
        for row in rows {
            let key = Quarantine.key(collection: row.collection, id: row.id, raw: row.raw)
            let kept = try fetch(collection: Quarantine.collection, id: key).flatMap(Quarantine.row)
            try upsert(Quarantine.record(row, firstSeen: kept?.firstSeen ?? now))
        }
    }

    /// Lets go of the quarantined rows of `ids` of `collection`: a readable version came.
    func releaseQuarantine(collection: String, ids: some Sequence<String>) throws {
        for id in ids {
            _ = try delete(collection: Quarantine.collection, id: MovedIDs.key(collection: collection, id: id))
        }
    }
}
