import Depot
import DepotSQLite
import Foundation
import Testing

@Suite struct StorageTests {
    static let rows: [StoredRecord] = [
        record("1", ["author": "ann", "likes": 3, "pinned": true, "score": 1.5]),
        record("2", ["author": "bob", "likes": 10, "pinned": false]),
        record("3", ["author": "ann", "likes": nil, "title": "x"]),
        record("4", ["author": "cy", "likes": 3, "pinned": true, "score": 3]),
        record("5", ["author": "ann", "likes": 7, "title": "b"], state: .deleted),
        record("6", ["author": 42, "likes": 2, "title": "a"]),
    ]

    static let criteria: [Criteria] = [
        .all,
        Criteria(["author": "ann"]),
        Criteria(["likes": 3]),
        Criteria(["likes": 3.0]),
        Criteria(["pinned": true]),
        Criteria(["pinned": false]),
        Criteria(["likes": nil]),
        Criteria(["title": nil]),
        Criteria(["author": 42]),
        Criteria(["author": "42"]),
        Criteria(["author": "ann", "likes": 3]),
        Criteria(sort: [.descending("likes")]),
        Criteria(sort: [.ascending("title")]),
        Criteria(sort: [.ascending("author"), .descending("likes")], limit: 3),
        Criteria(sort: [.ascending("score")]),
        Criteria(["author": "ann"], includeDeleted: true),
        Criteria(limit: 0),
    ]

    @Test(
        "criteria queries give the in-memory store's answers on the same data",
        arguments: [StorageKind.sqliteFile, .sqliteInMemory])
    func criteriaMatchInMemory(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let memory = InMemoryStorage()
        let storage = try await kind.make(in: directory)
        try await memory.upsert(Self.rows)
        try await storage.upsert(Self.rows)
        for criteria in Self.criteria {
            let expected = try await memory.fetch(collection: "messages", matching: criteria).map(\.id)
            let actual = try await storage.fetch(collection: "messages", matching: criteria).map(\.id)
            #expect(actual == expected, "\(criteria)")
        }
        // Spot checks that the shared answers are the right ones, not just equal.
        let anns = try await storage.fetch(collection: "messages", matching: Criteria(["author": "ann"]))
        #expect(anns.map(\.id) == ["1", "3"])
        let top = try await storage.fetch(
            collection: "messages", matching: Criteria(sort: [.descending("likes")], limit: 2)
        )
        #expect(top.map(\.id) == ["2", "1"])
    }

    @Test("insert, upsert, fetch, delete keep state and snapshot", arguments: StorageKind.allCases)
    func basics(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let first = record("a", ["text": "hello"], state: .created)
        try await storage.insert(first)
        await #expect { try await storage.insert(first) } throws: { ($0 as? DepotError)?.code == .conflict }
        #expect(try await storage.fetch(collection: "messages", id: "a") == first)
        #expect(try await storage.fetch(collection: "other", id: "a") == nil)
        let synced = record("a", ["text": "hello", "n": .integer(Int64.max)])
        try await storage.upsert(synced)
        let back = try #require(try await storage.fetch(collection: "messages", id: "a"))
        #expect(
            back.syncState == .synced && back.snapshot == synced.snapshot && back.object["n"] == .integer(Int64.max))
        #expect(try await storage.delete(collection: "messages", id: "a") == true)
        #expect(try await storage.delete(collection: "messages", id: "a") == false)
        try await storage.upsert([record("x", [:]), record("y", [:]), record("z", [:], collection: "other")])
        try await storage.deleteAll(collection: "messages")
        #expect(try await storage.fetch(collection: "messages", matching: .all).isEmpty)
        #expect(try await storage.fetch(collection: "other", matching: .all).count == 1)
    }

    @Test("a closed store reopens with its data intact")
    func reopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("reopen.sqlite")
        let storage = try SQLiteStorage(path: path)
        try await storage.upsert(Self.rows)
        try storage.close()
        await #expect { try await storage.fetch(collection: "messages", id: "1") } throws: {
            ($0 as? DepotError)?.code == .storage
        }
        let reopened = try SQLiteStorage(path: path)
        let all = try await reopened.fetch(collection: "messages", matching: Criteria(includeDeleted: true))
        #expect(all.map(\.id) == ["1", "2", "3", "4", "5", "6"])
        #expect(all.first { $0.id == "5" }?.syncState == .deleted)
    }

    @Test("two stores side by side do not interfere")
    func sideBySide() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let ann = try SQLiteStorage(path: directory.path("ann.sqlite"))
        let bob = try SQLiteStorage(path: directory.path("bob.sqlite"))
        try await ann.upsert(record("1", ["owner": "ann"]))
        try await bob.upsert(record("1", ["owner": "bob"]))
        #expect(try await ann.fetch(collection: "messages", id: "1")?.object["owner"] == "ann")
        #expect(try await bob.fetch(collection: "messages", id: "1")?.object["owner"] == "bob")
        try await ann.deleteAll(collection: "messages")
        #expect(try await bob.fetch(collection: "messages", id: "1") != nil)
    }

    @Test("a corrupt file or an unwritable path is a typed .storage error, not a crash")
    func badPaths() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let corrupt = directory.path("corrupt.sqlite")
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: corrupt))
        #expect { try SQLiteStorage(path: corrupt) } throws: { ($0 as? DepotError)?.code == .storage }
        #expect { try SQLiteStorage(path: directory.path("missing/dir/store.sqlite")) } throws: {
            ($0 as? DepotError)?.code == .storage
        }
    }

    @Test("upserting many records is one transaction: a failure stores none")
    func upsertAtomic() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try SQLiteStorage(path: directory.path("atomic.sqlite"))
        let bad = StoredRecord(collection: "messages", id: "bad", object: ["x": .double(.nan)], syncState: .synced)
        await #expect(throws: DepotError.self) { try await storage.upsert([record("ok", [:]), bad]) }
        #expect(try await storage.fetch(collection: "messages", id: "ok") == nil)
    }
}
