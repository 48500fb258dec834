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
        do { try criteria.validate() } catch { return Promise(error: error) }
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

    /// Runs `body` with the store locked; if it throws, every write it made is undone.
    public func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) -> Promise<Output> {
        do {
            let output = try collections.withLock { collections in
                // The transaction takes the only reference, so its writes do not copy the store.
                let transaction = Transaction(collections)
                collections = [:]
                defer { collections = transaction.collections }
                do {
                    return try body(transaction)
                } catch {
                    transaction.rollBack()
                    throw error
                }
            }
            return Promise(output)
        } catch {
            return Promise(error: error)
        }
    }

    /// The store while a transaction holds the lock, with what it replaced, to undo on a throw.
    private final class Transaction: StorageTransaction {
        var collections: [String: [String: StoredRecord]]
        private var undo: [(collection: String, id: String, record: StoredRecord?)] = []

        init(_ collections: [String: [String: StoredRecord]]) { self.collections = collections }

        func fetch(collection: String, id: String) -> StoredRecord? { collections[collection]?[id] }

        func upsert(_ record: StoredRecord) {
            undo.append((record.collection, record.id, collections[record.collection]?[record.id]))
            collections[record.collection, default: [:]][record.id] = record
        }

        func delete(collection: String, id: String) -> Bool {
            let removed = collections[collection]?.removeValue(forKey: id)
            if let removed { undo.append((collection, id, removed)) }
            return removed != nil
        }

        func rollBack() {
            for entry in undo.reversed() { collections[entry.collection, default: [:]][entry.id] = entry.record }
            undo = []
        }
    }
}
