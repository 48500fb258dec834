import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Query keys come from apps, forms and servers: any key must work or fail with a typed error,
/// never crash the process (regression: `readAll(query: ["author\"": "x"])` hit a precondition).
@Suite struct CriteriaKeyTests {
    static let oddKeys = ["author\"", "a\\b", "it's", "a.b", "$", "", "new\nline", "nul\u{0}"]

    @Test("any key filters and sorts on every store, quotes and backslashes included", arguments: StorageKind.allCases)
    func oddKeysWork(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        for key in Self.oddKeys {
            try await storage.deleteAll(collection: "messages")
            try await storage.upsert([
                record("1", [key: "x", "n": 1]),
                record("2", [key: "y", "n": 2]),
                record("3", ["n": 3]),
            ])
            // When
            let matched = try await storage.fetch(collection: "messages", matching: Criteria([key: "x"]))
            let missing = try await storage.fetch(collection: "messages", matching: Criteria([key: nil]))
            let sorted = try await storage.fetch(collection: "messages", matching: Criteria(sort: [.descending(key)]))

            // Then
            #expect(matched.map(\.id) == ["1"], "key \(key.debugDescription)")
            #expect(missing.map(\.id) == ["3"], "key \(key.debugDescription)")
            #expect(sorted.map(\.id) == ["2", "1", "3"], "key \(key.debugDescription)")
        }
    }

    @Test("criteria a store cannot evaluate reject with .invalidRequest", arguments: StorageKind.allCases)
    func unevaluableCriteria(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        for criteria in [Criteria(["tags": ["a"]]), Criteria(["meta": ["k": 1]]), Criteria(limit: -1)] {
            let error = await #expect(throws: DepotError.self) {
                try await storage.fetch(collection: "messages", matching: criteria)
            }
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test("an index key SQLite cannot path is a typed error at opening, not a crash")
    func badIndexKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let error = #expect(throws: DepotError.self) {
            try SQLiteStorage(path: directory.path("bad-index.sqlite"), indexes: ["messages": ["author\""]])
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test("readAll(query:) on a networking + storage repository takes any key from the local store")
    func repositoryQueryWithQuote() async throws {
        try await withFixture(strategy: .localFirst) { _, messages, storage in
            // Given
            var odd = record("9", ["text": "odd", "author\"": "x"])
            odd.syncState = .synced
            try await storage.upsert(odd)
            // When
            let answer = try await messages.readAll(query: ["author\"": "x"]).value
            // Then
            #expect(answer.origin == .local)
            #expect(answer.value.map(\.id) == ["9"])
        }
    }
}
