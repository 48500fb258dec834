import Foundation

/// A ``Storage`` in memory: for tests, previews and caches that need not survive a restart.
public final class InMemoryStorage: Storage {
    private let collections = LockedValue<[String: [String: StoredRecord]]>([:])

    /// Makes an empty store.
    public init() {}

    /// Adds a record; rejects with `.conflict` if the id is taken.
    public func insert(_ record: StoredRecord) -> Promise<Void> {
        let inserted = collections.withLock { collections in
            guard collections[record.collection]?[record.id] == nil else { return false }
            collections[record.collection, default: [:]][record.id] = record
            return true
        }
        if inserted { return Promise(()) }
        return Promise(error: DepotError(.conflict, "\(record.collection) already has a record with id \(record.id)"))
    }

    /// Adds or replaces every record at once.
    public func upsert(_ records: [StoredRecord]) -> Promise<Void> {
        collections.withLock { collections in
            for record in records { collections[record.collection, default: [:]][record.id] = record }
        }
        return Promise(())
    }

    /// The record with `id`, or nil.
    public func fetch(collection: String, id: String) -> Promise<StoredRecord?> {
        Promise(collections.withLock { $0[collection]?[id] })
    }

    /// The records matching `criteria`.
    public func fetch(collection: String, matching criteria: Criteria) -> Promise<[StoredRecord]> {
        let records = collections.withLock { Array(($0[collection] ?? [:]).values) }
        return Promise(CriteriaEvaluator.apply(criteria, to: records))
    }

    /// Removes the record with `id`.
    public func delete(collection: String, id: String) -> Promise<Bool> {
        Promise(collections.withLock { $0[collection]?.removeValue(forKey: id) != nil })
    }

    /// Removes every record of `collection`.
    public func deleteAll(collection: String) -> Promise<Void> {
        collections.withLock { _ = $0.removeValue(forKey: collection) }
        return Promise(())
    }
}
