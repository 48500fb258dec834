import Foundation

/// Where schema versions are kept: one record per collection (its id the collection's name, its
/// object `{"version": n}`), in a collection of their own, like `PullCursors`: it works on every
/// ``Storage`` without a schema change and survives restarts.
enum SchemaVersions {
    static let collection = "__depot_schema_versions"

    /// The record that stores `version` for `collection`.
    static func record(collection: String, version: Int) -> StoredRecord {
        StoredRecord(
            collection: Self.collection, id: collection, object: ["version": .integer(Int64(version))],
            syncState: .synced)
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
