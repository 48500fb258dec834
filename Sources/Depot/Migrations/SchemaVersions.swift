import Foundation

/// Where schema versions are kept: one record per collection (its id the collection's name, its
/// object `{"version": n}`), in a collection of their own, like `PullCursors`: it works on every
/// ``Storage`` without a schema change and survives restarts.
enum SchemaVersions {
    static let collection = "__depot_schema_versions"

    /// The record that stores `version` for `collection`, and the last outbox sequence a migration
    /// left as written (``asWrittenThrough(of:)``), if any.
    static func record(collection: String, version: Int, asWrittenThrough: Int64? = nil) -> StoredRecord {
        var object: JSONObject = ["version": .integer(Int64(version))]
        if let asWrittenThrough { object["asWrittenThrough"] = .integer(asWrittenThrough) }
        return StoredRecord(collection: Self.collection, id: collection, object: object, syncState: .synced)
    }

    /// The last outbox sequence of the collection that a migration found queued and left as an
    /// older version of the app wrote it: such an entry is never folded with a later write (its
    /// payload and the later one are two versions' shapes). Nil when no migration left any.
    static func asWrittenThrough(of record: StoredRecord?) -> Int64? {
        guard case .integer(let sequence)? = record?.object["asWrittenThrough"] else { return nil }
        return sequence
    }

    /// The version a stored record holds.
    ///
    /// - Throws: `DepotError` `.migration` when it holds no whole number.
    static func version(of record: StoredRecord) throws -> Int {
        guard let version = record.object["version"]?.intValue, version >= 0 else {
            throw DepotError(
                .migration, "the stored schema version of \(record.id) is not a whole number: \(record.object)")
        }
        return version
    }
}
