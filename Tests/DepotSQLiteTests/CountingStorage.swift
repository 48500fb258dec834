import Depot
import Foundation

/// A storage that counts the round trips made to `base`: transactions apart, every other call.
final class CountingStorage: Storage {
    let base: any Storage
    private let counts = LockedValue((transactions: 0, others: 0))

    init(_ base: any Storage) { self.base = base }

    /// The transactions and the other calls made so far.
    var calls: (transactions: Int, others: Int) { counts.withLock { $0 } }

    private func other<Value>(_ call: () -> Value) -> Value {
        counts.withLock { $0.others += 1 }
        return call()
    }

    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        -> Promise<[StoredRecord]>
    { other { base.fetch(collection: collection, syncStates: states, after: id, limit: limit) } }
    func insert(_ record: StoredRecord) -> Promise<Void> { other { base.insert(record) } }
    func upsert(_ records: [StoredRecord]) -> Promise<Void> { other { base.upsert(records) } }
    func upsert(encoded records: [EncodedRecord]) -> Promise<Void> { other { base.upsert(encoded: records) } }
    func fetch(collection: String, id: String) -> Promise<StoredRecord?> {
        other { base.fetch(collection: collection, id: id) }
    }
    func fetch(collection: String, matching criteria: Criteria) -> Promise<[StoredRecord]> {
        other { base.fetch(collection: collection, matching: criteria) }
    }
    func delete(collection: String, id: String) -> Promise<Bool> {
        other { base.delete(collection: collection, id: id) }
    }
    func deleteAll(collection: String) -> Promise<Void> { other { base.deleteAll(collection: collection) } }
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) -> Promise<Output> {
        counts.withLock { $0.transactions += 1 }
        return base.transaction(body)
    }
    func outbox(_ query: OutboxQuery) -> Promise<[OutboxEntry]> { other { base.outbox(query) } }
    func outboxCount(_ query: OutboxQuery) -> Promise<Int> { other { base.outboxCount(query) } }
}
