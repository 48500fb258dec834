import Depot
import DepotSQLite
import Foundation
import Testing

/// `Storage.transaction` is an atomic read-modify-write, and local writes use it.
@Suite struct TransactionTests {
    @Test("400 concurrent read-modify-writes to 10 ids lose nothing", arguments: StorageKind.allCases)
    func concurrentIncrements(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let ids = (0..<10).map(String.init)
        try await storage.upsert(ids.map { record($0, ["count": 0]) })
        // When: 400 increments, 40 per id, all at once. A read and a write in two
        // transactions would lose increments here: 40 racing tasks per id on a 2-thread pool
        // interleave their reads and writes (it was 1,000; 400 costs less CPU in the README
        // suite, and 40 tasks per id still race).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                let id = ids[index % ids.count]
                group.addTask {
                    try await storage.transaction { tx in
                        guard var record = try tx.fetch(collection: "messages", id: id) else {
                            throw DepotError(.notFound, "no \(id)")
                        }
                        let count = record.object["count"]?.intValue ?? -1_000_000
                        record.object["count"] = .integer(Int64(count + 1))
                        record.syncState = .updated
                        try tx.upsert(record)
                    }
                }
            }
            try await group.waitForAll()
        }
        // Then
        for id in ids {
            let stored = try #require(try await storage.fetch(collection: "messages", id: id))
            #expect(stored.object["count"] == 40, "id \(id)")
            #expect(stored.syncState == .updated)
            #expect(stored.snapshot?["count"] == 0, "the server's snapshot is kept")
        }
    }

    @Test("a transaction that throws writes nothing", arguments: StorageKind.allCases)
    func rollBack(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        try await storage.upsert(record("1", ["text": "before"]))
        // When
        await #expect(throws: TestFailure.self) {
            try await storage.transaction { tx in
                try tx.upsert(record("1", ["text": "after"], state: .updated))
                try tx.upsert(record("2", ["text": "new"], state: .created))
                #expect(try tx.delete(collection: "messages", id: "1"))
                #expect(try tx.fetch(collection: "messages", id: "1") == nil, "a transaction sees its own writes")
                throw TestFailure()
            }
        }
        // Then
        let one = try await storage.fetch(collection: "messages", id: "1")
        #expect(one?.object["text"] == "before")
        #expect(one?.syncState == .synced)
        #expect(try await storage.fetch(collection: "messages", id: "2") == nil)
    }

    @Test("1,000 concurrent local writes to 10 ids leave every record in a state its history allows")
    func concurrentLocalWrites() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try SQLiteStorage(path: directory.path("local-writes.sqlite"))
        let local = LocalMessages(storage: storage)
        // Given: ids 0–4 the server has (synced), ids 5–9 made locally (created).
        let synced = (0..<5).map { record(String($0), ["text": "server"]) }
        let created = (5..<10).map { record(String($0), ["text": "local"], state: .created) }
        try await storage.upsert(synced + created)
        // When: updates on every id, with deletes and re-creates mixed in.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                let id = String(index % 10)
                group.addTask {
                    let message = Message(id: id, text: "write \(index)")
                    switch index % 7 {
                    case 3:
                        do { try await local.delete(id: id).value } catch let error as DepotError
                            where error.code == .notFound
                        {}
                    case 5:
                        do { _ = try await local.create(message).value } catch let error as DepotError
                            where error.code == .conflict
                        {}
                    default:
                        _ = try await local.update(message).value
                    }
                }
            }
            try await group.waitForAll()
        }
        // Then: ids the server has keep its snapshot and are never `.created`; local-only ids
        // never carry a snapshot and are never tombstones.
        for id in 0..<10 {
            let stored = try await storage.fetch(collection: "messages", id: String(id))
            if id < 5 {
                let stored = try #require(stored, "a tombstone, not a removal, for id \(id)")
                #expect([.updated, .deleted].contains(stored.syncState), "id \(id): \(stored.syncState)")
                #expect(stored.snapshot?["text"] == "server", "id \(id)")
            } else if let stored {
                #expect(stored.syncState == .created, "id \(id): \(stored.syncState)")
                #expect(stored.snapshot == nil, "id \(id)")
            }
        }
    }
}

private struct TestFailure: Error {}
