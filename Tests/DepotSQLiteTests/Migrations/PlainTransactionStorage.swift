import Depot
import Foundation

/// A storage over `base` whose transactions cannot list a collection (they are not
/// `ListingStorageTransaction`s): what a third-party store looks like to `Storage.migrate(_:)`.
final class PlainTransactionStorage: Storage {
    let base: any Storage

    init(_ base: any Storage) { self.base = base }

    func insert(_ record: StoredRecord) async throws { try await base.insert(record) }
    func upsert(_ records: [StoredRecord]) async throws { try await base.upsert(records) }
    func fetch(collection: String, id: String) async throws -> StoredRecord? {
        try await base.fetch(collection: collection, id: id)
    }
    func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        try await base.fetch(collection: collection, matching: criteria)
    }
    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    { try await base.fetch(collection: collection, syncStates: states, after: id, limit: limit) }
    func delete(collection: String, id: String) async throws -> Bool {
        try await base.delete(collection: collection, id: id)
    }
    func deleteAll(collection: String) async throws { try await base.deleteAll(collection: collection) }
    func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] { try await base.outbox(query) }
    func outboxCount(_ query: OutboxQuery) async throws -> Int { try await base.outboxCount(query) }
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        try await base.transaction { tx in try body(PlainTransaction(base: tx)) }
    }

    /// Forwards the requirements of `StorageTransaction` only.
    private struct PlainTransaction: StorageTransaction {
        let base: any StorageTransaction

        func fetch(collection: String, id: String) throws -> StoredRecord? {
            try base.fetch(collection: collection, id: id)
        }
        func upsert(_ record: StoredRecord) throws { try base.upsert(record) }
        func delete(collection: String, id: String) throws -> Bool { try base.delete(collection: collection, id: id) }
        func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
            try base.outboxEntries(collection: collection, entityID: entityID)
        }
        func outboxEntry(sequence: Int64) throws -> OutboxEntry? { try base.outboxEntry(sequence: sequence) }
        func appendOutbox(_ entry: OutboxEntry) throws -> Int64 { try base.appendOutbox(entry) }
        func replaceOutbox(_ entry: OutboxEntry) throws -> Bool { try base.replaceOutbox(entry) }
        func removeOutbox(sequence: Int64) throws -> Bool { try base.removeOutbox(sequence: sequence) }
    }
}
