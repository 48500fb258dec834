import Depot
import Foundation

/// A storage that stops once between a reader's look at the unsynced records and what it does
/// with them: the first page of records by sync state it reads is handed back only after
/// `afterRead` has run. Everything else goes straight to `base`.
final class ReadGatedStorage: Storage {
    let base: any Storage
    private let gate: LockedValue<(@Sendable () async throws -> Void)?>

    init(_ base: any Storage, afterRead: @escaping @Sendable () async throws -> Void) {
        self.base = base
        gate = LockedValue(afterRead)
    }

    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    {
        let records = try await base.fetch(collection: collection, syncStates: states, after: id, limit: limit)
        let afterRead = gate.withLock { gate in
            let taken = gate
            gate = nil
            return taken
        }
        try await afterRead?()
        return records
    }

    func insert(_ record: StoredRecord) async throws { try await base.insert(record) }
    func upsert(_ records: [StoredRecord]) async throws { try await base.upsert(records) }
    func upsert(encoded records: [EncodedRecord]) async throws { try await base.upsert(encoded: records) }
    func fetch(collection: String, id: String) async throws -> StoredRecord? {
        try await base.fetch(collection: collection, id: id)
    }
    func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        try await base.fetch(collection: collection, matching: criteria)
    }
    func delete(collection: String, id: String) async throws -> Bool {
        try await base.delete(collection: collection, id: id)
    }
    func deleteAll(collection: String) async throws { try await base.deleteAll(collection: collection) }
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output { try await base.transaction(body) }
    func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] { try await base.outbox(query) }
    func outboxCount(_ query: OutboxQuery) async throws -> Int { try await base.outboxCount(query) }
}
