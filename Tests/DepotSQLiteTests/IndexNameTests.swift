import Depot
import DepotSQLite
import DepotTesting
import Foundation
import GRDB
import Testing

/// Declared indexes get one name per (collection, key) pair. Regression: names mapped every other
/// character to `_` and SQLite compares names without case, so `a-b` and `a_b` (or `Author` and
/// `author`) shared one index, built on the first key; the second key's `INDEXED BY` then named
/// an index that cannot serve it, and its queries failed.
@Suite struct IndexNameTests {
    static let keys = ["a-b", "a_b", "a.b", "Author", "author"]

    /// The expression indexes on `records` in the file at `path`, as SQL.
    private func declaredIndexes(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql LIKE '%json_extract%'"
            )
        }
    }

    @Test("keys whose old index names collided get an index each, and each serves its own queries")
    func collidingKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given
        let storage = try SQLiteStorage(path: directory.path("indexes.sqlite"), indexes: ["messages": Self.keys])
        #expect(try declaredIndexes(directory.path("indexes.sqlite")).count == Self.keys.count)
        let objects = Self.keys.enumerated().map { index, key in record(String(index), [key: "x"]) }
        try await storage.upsert(objects)
        for (index, key) in Self.keys.enumerated() {
            // When
            let matched = try await storage.fetch(collection: "messages", matching: Criteria([key: "x"]))
            // Then
            #expect(matched.map(\.id) == [String(index)], "key \(key.debugDescription)")
        }
        // And a second opening of the file finds every index in place.
        let again = try SQLiteStorage(path: directory.path("indexes.sqlite"), indexes: ["messages": Self.keys])
        let matched = try await again.fetch(collection: "messages", matching: Criteria(["a_b": "x"]))
        #expect(matched.map(\.id) == ["1"])
        #expect(try declaredIndexes(directory.path("indexes.sqlite")).count == Self.keys.count)
    }

    @Test("a collection and key split differently never share an index")
    func collectionKeySplit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Given: ("a_b", "c") and ("a", "b_c") were both idx_a_b_c.
        let storage = try SQLiteStorage(path: directory.path("split.sqlite"), indexes: ["a_b": ["c"], "a": ["b_c"]])
        #expect(try declaredIndexes(directory.path("split.sqlite")).count == 2)
        try await storage.upsert([
            record("1", ["c": "x"], collection: "a_b"), record("2", ["b_c": "x"], collection: "a"),
        ])
        // When
        let first = try await storage.fetch(collection: "a_b", matching: Criteria(["c": "x"]))
        let second = try await storage.fetch(collection: "a", matching: Criteria(["b_c": "x"]))
        // Then
        #expect(first.map(\.id) == ["1"])
        #expect(second.map(\.id) == ["2"])
    }

    @Test("a file from before keeps no index under the old name: it is replaced by the unambiguous one")
    func legacyIndexDropped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("legacy.sqlite")
        // Given: a file with the index an earlier version made for `a-b` (and meant for `a_b` too).
        _ = try SQLiteStorage(path: path)
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: "CREATE INDEX \"idx_messages_a_b\" ON records(collection, json_extract(object, '$.\"a-b\"'))")
        }
        // When
        _ = try SQLiteStorage(path: path, indexes: ["messages": ["a-b", "a_b"]])
        // Then
        let names = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%a%b'")
        }
        #expect(names.sorted() == ["index_messages__a_2Db", "index_messages__a_5Fb"])
    }
}
