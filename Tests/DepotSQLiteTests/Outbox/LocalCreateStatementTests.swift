import Depot
import DepotSQLite
import Foundation
import Testing

/// The statements a local-first create runs in its transaction (issue 35): each call a
/// `StorageTransaction` requirement answers is one statement on SQLite.
@Suite struct LocalCreateStatementTests {
    @Test(
        "a local-first create with its outbox entry runs 4 statements: the id read, its move read, the record written, the entry added (no bookkeeping)",
        arguments: [StorageKind.memory, .sqliteFile])
    func localCreateStatements(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let messages = CachedMessages(
            store: NetworkingSession(url: URL(string: "http://127.0.0.1:9")!), storage: storage)
        // When: one create, in a transaction whose statements are counted
        let calls = try await storage.transaction { tx in
            let counting = StatementCountingTransaction(tx)
            try messages.create(Message(id: "1", text: "hi"), in: counting)
            return counting.calls
        }
        // Then: the id read, the read of where the server moved it (a recorded fact: a create of
        // an id the server spelled otherwise goes behind its queued delete), the record written,
        // the entry added if first; no id move forgotten,
        // no cache entry read, no list token renewed (a record the store did not hold has no
        // entry, a removal forgets the move, a pending record keeps lists from being used)
        #expect(calls == ["fetch", "fetch", "upsert", "appendOutboxIfFirst"], "\(calls)")
        #expect(!calls.contains("outboxEntries"), "\(calls)")
        let entries = try await storage.outbox(OutboxQuery())
        #expect(entries.map(\.operation) == [.create] && entries.first?.payload?["text"] == "hi")
        #expect(try await storage.fetch(collection: "messages", id: "1")?.syncState == .created)
    }
}

/// A transaction that names every requirement called on it, then runs it on `base`.
final class StatementCountingTransaction: StorageTransaction {
    let base: any StorageTransaction
    private(set) var calls: [String] = []

    init(_ base: any StorageTransaction) { self.base = base }

    func fetch(collection: String, id: String) throws -> StoredRecord? {
        calls.append("fetch")
        return try base.fetch(collection: collection, id: id)
    }
    func upsert(_ record: StoredRecord) throws {
        calls.append("upsert")
        try base.upsert(record)
    }
    func upsert(encoded record: EncodedRecord) throws {
        calls.append("upsert")
        try base.upsert(encoded: record)
    }
    func delete(collection: String, id: String) throws -> Bool {
        calls.append("delete")
        return try base.delete(collection: collection, id: id)
    }
    func syncStates(collection: String, ids: [String]) throws -> [String: SyncState] {
        calls.append("syncStates")
        return try base.syncStates(collection: collection, ids: ids)
    }
    func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
        calls.append("outboxEntries")
        return try base.outboxEntries(collection: collection, entityID: entityID)
    }
    func outboxEntry(sequence: Int64) throws -> OutboxEntry? {
        calls.append("outboxEntry")
        return try base.outboxEntry(sequence: sequence)
    }
    func appendOutbox(_ entry: OutboxEntry) throws -> Int64 {
        calls.append("appendOutbox")
        return try base.appendOutbox(entry)
    }
    func appendOutboxIfFirst(_ entry: OutboxEntry) throws -> OutboxAppend {
        calls.append("appendOutboxIfFirst")
        return try base.appendOutboxIfFirst(entry)
    }
    func replaceOutbox(_ entry: OutboxEntry) throws -> Bool {
        calls.append("replaceOutbox")
        return try base.replaceOutbox(entry)
    }
    func removeOutbox(sequence: Int64) throws -> Bool {
        calls.append("removeOutbox")
        return try base.removeOutbox(sequence: sequence)
    }
    func markOutboxAttempted(sequences: [Int64]) throws -> [OutboxEntry] {
        calls.append("markOutboxAttempted")
        return try base.markOutboxAttempted(sequences: sequences)
    }
    func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry] {
        calls.append("claimOutbox")
        return try base.claimOutbox(sequences: sequences, lease: lease, now: now)
    }
    func releaseOutbox(sequences: [Int64], owner: String) throws -> Int {
        calls.append("releaseOutbox")
        return try base.releaseOutbox(sequences: sequences, owner: owner)
    }
}
