import Foundation

/// A collection of Depot's own kept as one record holding one list of values (the open batches,
/// the keys answered "in flight"): it survives restarts on every storage without a schema of its
/// own, and a transaction reads and writes it whole.
struct DepotListRecord: Sendable, Hashable {
    /// The reserved collection.
    let collection: String
    /// The id of its one record.
    let id: String
    /// The key of the record's object that holds the list.
    let key: String
}

extension RecordTransaction {
    /// The values `list` holds; none when its record is missing or holds no list under its key.
    func values(of list: DepotListRecord) throws -> [JSON] {
        guard case .array(let values)? = try fetch(collection: list.collection, id: list.id)?.object[list.key] else {
            return []
        }
        return values
    }

    /// Stores `values` as what `list` holds; with none, its record goes.
    func store(_ values: [JSON], in list: DepotListRecord) throws {
        guard !values.isEmpty else {
            _ = try delete(collection: list.collection, id: list.id)
            return
        }
        try upsert(
            StoredRecord(
                collection: list.collection, id: list.id, object: [list.key: .array(values)], syncState: .synced))
    }
}
