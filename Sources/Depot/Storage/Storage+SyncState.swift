import Foundation

extension Storage {
    /// Up to `limit` records of `collection` in `states`, by id (bytewise), after `id` when given.
    /// This default reads the whole collection and filters it in Swift: fine for
    /// ``InMemoryStorage``; a store with an index on the sync state answers it in one query.
    public func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        -> Promise<[StoredRecord]>
    {
        guard !states.isEmpty, limit > 0 else { return Promise([]) }
        return fetch(collection: collection, matching: Criteria(includeDeleted: true)).map { records in
            let selected = records.filter { record in
                guard states.contains(record.syncState) else { return false }
                guard let id else { return true }
                return id.utf8.lexicographicallyPrecedes(record.id.utf8)
            }
            let sorted = selected.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
            return Array(sorted.prefix(limit))
        }
    }
}
