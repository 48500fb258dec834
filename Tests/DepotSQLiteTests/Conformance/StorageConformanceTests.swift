import Depot
import DepotSQLite
import Foundation
import Testing

/// The storage contract, written once and run on every store: the same calls must give the same
/// exact answers on each. A new store (PostgreSQL, say) adds a case to ``StorageKind`` in
/// `Fixtures.swift`; every test here then runs on it with no other change.
@Suite struct StorageConformanceTests {
    // MARK: - Records

    @Test("insert of a taken id is a .conflict and changes nothing", arguments: StorageKind.allCases)
    func insertConflict(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        let original = record("a", ["text": "first"], state: .created)
        try await storage.insert(original)
        // When
        await #expect {
            try await storage.insert(record("a", ["text": "second"]))
        } throws: { ($0 as? DepotError)?.code == .conflict }
        try await storage.insert(record("a", ["text": "other"], collection: "notes"))
        // Then
        #expect(try await storage.fetch(collection: "messages", id: "a") == original)
        #expect(try await storage.fetch(collection: "notes", id: "a")?.object["text"] == "other")
    }

    @Test("upsert replaces the whole record; fetch of an absent id is nil", arguments: StorageKind.allCases)
    func upsertReplaces(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        var first = record("a", ["text": "one", "likes": 1])
        first.etag = "\"v1\""
        try await storage.upsert(first)
        // When
        let second = record("a", ["text": "two"], state: .updated)
        try await storage.upsert(second)
        // Then
        #expect(try await storage.fetch(collection: "messages", id: "a") == second)
        #expect(try await storage.fetch(collection: "messages", id: "b") == nil)
        #expect(try await storage.fetch(collection: "notes", id: "a") == nil)
    }

    @Test("upsert(encoded:) reads back as the record it was made from", arguments: StorageKind.allCases)
    func upsertEncoded(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        var synced = record(
            "a", ["text": "é \"quoted\"", "n": .integer(Int64.max), "x": 1.5, "nested": ["k": [1, nil]]])
        synced.etag = "W/\"7\""
        let created = record("b", ["text": "local"], state: .created)
        // When
        try await storage.upsert(encoded: [try EncodedRecord(synced), try EncodedRecord(created)])
        // Then
        #expect(try await storage.fetch(collection: "messages", id: "a") == synced)
        #expect(try await storage.fetch(collection: "messages", id: "b") == created)
    }

    @Test("criteria a store cannot evaluate reject with .invalidRequest", arguments: StorageKind.allCases)
    func invalidCriteria(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert(Self.rows)
        // When / Then
        for criteria in [Criteria(["tags": ["a"]]), Criteria(["meta": ["k": 1]]), Criteria(limit: -1)] {
            await #expect("\(criteria)") {
                try await storage.fetch(collection: "messages", matching: criteria)
            } throws: { ($0 as? DepotError)?.code == .invalidRequest }
        }
    }

    @Test("delete says whether it removed; deleteAll leaves other collections", arguments: StorageKind.allCases)
    func deletes(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert([
            record("a", [:]), record("b", [:]), record("c", [:], state: .deleted),
            record("a", [:], collection: "notes"),
        ])
        // When / Then
        #expect(try await storage.delete(collection: "messages", id: "a") == true)
        #expect(try await storage.delete(collection: "messages", id: "a") == false)
        #expect(try await storage.delete(collection: "messages", id: "missing") == false)
        try await storage.deleteAll(collection: "messages")
        #expect(try await storage.fetch(collection: "messages", matching: Criteria(includeDeleted: true)) == [])
        #expect(try await storage.fetch(collection: "notes", matching: .all).map(\.id) == ["a"])
    }

    static let rows: [StoredRecord] = [
        record("1", ["author": "ann", "likes": 3, "pinned": true]),
        record("2", ["author": "bob", "likes": 10, "pinned": false]),
        record("3", ["author": "ann", "title": "t"]),
        record("4", ["author": "cy", "likes": 3, "pinned": true]),
        record("5", ["author": "ann", "likes": 7], state: .deleted),
        record("6", ["author": "bob", "likes": 1], state: .updated),
        record("7", ["author": "ann", "likes": 3], collection: "notes"),
    ]

    @Test(
        "fetch(matching:) filters on JSON fields and hides tombstones unless asked",
        arguments: StorageKind.allCases)
    func criteriaFilters(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert(Self.rows)
        // When
        func ids(_ criteria: Criteria) async throws -> [String] {
            try await storage.fetch(collection: "messages", matching: criteria).map(\.id)
        }
        // Then
        #expect(try await ids(.all) == ["1", "2", "3", "4", "6"])
        #expect(try await ids(Criteria(["author": "ann"])) == ["1", "3"])
        #expect(try await ids(Criteria(["likes": 3])) == ["1", "4"])
        #expect(try await ids(Criteria(["pinned": true])) == ["1", "4"])
        #expect(try await ids(Criteria(["pinned": false])) == ["2"])
        #expect(try await ids(Criteria(["likes": nil])) == ["3"], ".null matches a missing key")
        #expect(try await ids(Criteria(["author": "ann", "likes": 3])) == ["1"])
        #expect(try await ids(Criteria(["author": "nobody"])) == [])
        #expect(try await ids(Criteria(["author": "ann"], includeDeleted: true)) == ["1", "3", "5"])
        #expect(try await ids(Criteria(includeDeleted: true)) == ["1", "2", "3", "4", "5", "6"])
    }

    @Test("fetch(matching:) sorts both ways, ties by id, then limits", arguments: StorageKind.allCases)
    func criteriaSortAndLimit(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert(Self.rows)
        // When
        func ids(_ criteria: Criteria) async throws -> [String] {
            try await storage.fetch(collection: "messages", matching: criteria).map(\.id)
        }
        // Then: a missing value sorts first (null before numbers).
        #expect(try await ids(Criteria(sort: [.ascending("likes")])) == ["3", "6", "1", "4", "2"])
        #expect(try await ids(Criteria(sort: [.descending("likes")])) == ["2", "1", "4", "6", "3"])
        #expect(
            try await ids(Criteria(sort: [.ascending("author"), .descending("likes")])) == ["1", "3", "2", "6", "4"])
        #expect(try await ids(Criteria(sort: [.descending("likes")], limit: 2)) == ["2", "1"])
        #expect(try await ids(Criteria(["author": "ann"], sort: [.descending("likes")], limit: 1)) == ["1"])
        #expect(try await ids(Criteria(limit: 0)) == [])
        #expect(try await ids(Criteria(limit: 100)) == ["1", "2", "3", "4", "6"])
    }

    @Test("fetch(syncStates:) returns only those states, by id, in pages", arguments: StorageKind.allCases)
    func syncStatePages(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: ids whose bytewise order ("B" < "a") differs from a case-insensitive one.
        try await storage.upsert([
            record("a", [:], state: .created), record("B", [:], state: .updated), record("c", [:]),
            record("d", [:], state: .deleted), record("e", [:], state: .created),
            record("a2", [:], state: .created, collection: "notes"),
        ])
        let unsynced: Set<SyncState> = [.created, .updated, .deleted]
        func ids(_ states: Set<SyncState>, after: String?, limit: Int) async throws -> [String] {
            try await storage.fetch(collection: "messages", syncStates: states, after: after, limit: limit)
                .map(\.id)
        }
        // When / Then
        #expect(try await ids(unsynced, after: nil, limit: 10) == ["B", "a", "d", "e"])
        #expect(try await ids(unsynced, after: nil, limit: 2) == ["B", "a"])
        #expect(try await ids(unsynced, after: "a", limit: 2) == ["d", "e"])
        #expect(try await ids(unsynced, after: "e", limit: 2) == [])
        #expect(try await ids([.synced], after: nil, limit: 10) == ["c"])
        #expect(try await ids([.created], after: "B", limit: 10) == ["a", "e"])
        let page = try await storage.fetch(collection: "messages", syncStates: [.deleted], after: nil, limit: 5)
        #expect(page == [record("d", [:], state: .deleted)], "whole records, tombstones included")
    }

    // MARK: - Transactions

    @Test("a transaction body that throws leaves no record and no outbox entry", arguments: StorageKind.allCases)
    func transactionRollsBack(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert(record("1", ["text": "before"]))
        let kept = try await Conformance.append([Conformance.entry("1")], to: storage)
        // When
        await #expect(throws: ConformanceFailure.self) {
            try await storage.transaction { tx in
                try tx.upsert(record("1", ["text": "after"], state: .updated))
                try tx.upsert(record("2", ["text": "new"], state: .created))
                try tx.recordOutbox(collection: "messages", entityID: "2", operation: .create, payload: ["text": "new"])
                try tx.removeOutbox(sequence: kept[0])
                throw ConformanceFailure()
            }
        }
        // Then
        #expect(try await storage.fetch(collection: "messages", id: "1") == record("1", ["text": "before"]))
        #expect(try await storage.fetch(collection: "messages", id: "2") == nil)
        let outbox = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(outbox.map(\.sequence) == kept)
    }

    @Test("a transaction's writes are all visible after it, and it sees its own", arguments: StorageKind.allCases)
    func transactionCommits(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        try await storage.upsert([record("old", [:]), record("gone", [:], state: .updated)])
        // When
        let (states, sequence) = try await storage.transaction { tx -> ([String: SyncState], Int64?) in
            try tx.upsert(record("new", ["text": "n"], state: .created))
            try tx.delete(collection: "messages", id: "gone")
            let entry = try tx.recordOutbox(
                collection: "messages", entityID: "new", operation: .create, payload: ["text": "n"])
            let states = try tx.syncStates(collection: "messages", ids: ["old", "new", "gone", "missing"])
            return (states, entry?.sequence)
        }
        // Then
        #expect(states == ["old": .synced, "new": .created])
        let new = try await storage.fetch(collection: "messages", id: "new")
        #expect(new == record("new", ["text": "n"], state: .created))
        #expect(try await storage.fetch(collection: "messages", id: "gone") == nil)
        let outbox = try await storage.outbox(OutboxQuery())
        #expect(outbox.map(\.sequence) == [try #require(sequence)])
        #expect(outbox.map(\.operation) == [.create])
        #expect(outbox.first?.payload == ["text": "n"])
        let after = try await storage.transaction { tx in
            try tx.syncStates(collection: "messages", ids: ["old", "new", "gone"])
        }
        #expect(after == ["old": .synced, "new": .created])
    }
}
