import Depot
import Foundation

/// A storage that counts the round trips made to `base`: transactions apart, every other call.
final class CountingStorage: Storage {
    let base: any Storage
    private let counts = LockedValue((transactions: 0, others: 0))

    init(_ base: any Storage) { self.base = base }

    /// The transactions and the other calls made so far.
    var calls: (transactions: Int, others: Int) { counts.withLock { $0 } }

    private func other() { counts.withLock { $0.others += 1 } }

    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    {
        other()
        return try await base.fetch(collection: collection, syncStates: states, after: id, limit: limit)
    }
    func insert(_ record: StoredRecord) async throws {
        other()
        try await base.insert(record)
    }
    func upsert(_ records: [StoredRecord]) async throws {
        other()
        try await base.upsert(records)
    }
    func upsert(encoded records: [EncodedRecord]) async throws {
        other()
        try await base.upsert(encoded: records)
    }
    func fetch(collection: String, id: String) async throws -> StoredRecord? {
        other()
        return try await base.fetch(collection: collection, id: id)
    }
    func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        other()
        return try await base.fetch(collection: collection, matching: criteria)
    }
    func delete(collection: String, id: String) async throws -> Bool {
        other()
        return try await base.delete(collection: collection, id: id)
    }
    func deleteAll(collection: String) async throws {
        other()
        try await base.deleteAll(collection: collection)
    }
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        counts.withLock { $0.transactions += 1 }
        return try await base.transaction(body)
    }
    func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] {
        other()
        return try await base.outbox(query)
    }
    func outboxCount(_ query: OutboxQuery) async throws -> Int {
        other()
        return try await base.outboxCount(query)
    }
}
