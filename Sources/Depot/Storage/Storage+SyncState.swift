import Foundation

extension RecordStorage {
    /// Up to `limit` records of `collection` in `states`, by id (bytewise), after `id` when given.
    /// This default reads the whole collection and filters it in Swift: fine for
    /// ``InMemoryStorage``; a store with an index on the sync state answers it in one query.
    public func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    {
        guard !states.isEmpty, limit > 0 else { return [] }
        let records = try await fetch(collection: collection, matching: Criteria(includeDeleted: true))
        let selected = records.filter { record in
            guard states.contains(record.syncState) else { return false }
            guard let id else { return true }
            return id.utf8.lexicographicallyPrecedes(record.id.utf8)
        }
        let sorted = selected.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        return Array(sorted.prefix(limit))
    }
}
