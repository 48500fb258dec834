import Depot
import Foundation
import Testing

@testable import DepotSQLite

/// A hand-mapped entity: encoded through its dictionary, not `Codable`.
private struct Note: Identifiable, Sendable, DictionaryRepresentable {
    var id: Int
    var body: String
    var dictionary: JSONObject { ["id": .integer(Int64(id)), "body": .string(body), "score": 2.5] }
}

/// `Storage.upsert(encoded:)`: entities encoded once, straight to the text the store keeps.
@Suite struct EncodedRecordTests {
    @Test("an encoded upsert reads back exactly what the StoredRecord path stores", arguments: StorageKind.allCases)
    func encodedMatchesStoredRecords(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let reference = InMemoryStorage()
        let message = Message(id: "m/1", text: "slash / quote \" é", author: "ann", likes: 3)
        let note = Note(id: 7, body: "hand-mapped")
        let server: JSONObject = ["id": "m/1", "text": "server", "extra": ["nested": true]]

        // Given: the same entities as encoded records and as parsed records.
        let encoded = [
            try EncodedRecord(collection: "messages", entity: message, syncState: .synced, snapshot: .sameAsObject),
            try EncodedRecord(collection: "notes", entity: note, syncState: .created),
            try EncodedRecord(
                collection: "raw", entity: ["id": "r1", "n": .integer(Int64.max)] as IdentifiedObject,
                syncState: .updated, snapshot: .encoded(try JSON.object(server).serialized().text), etag: "\"v1\""),
        ]
        let messageObject = try JSONMapping.object(message)
        let parsed = [
            StoredRecord(
                collection: "messages", id: "m/1", object: messageObject, syncState: .synced, snapshot: messageObject),
            StoredRecord(collection: "notes", id: "7", object: try JSONMapping.object(note), syncState: .created),
            StoredRecord(
                collection: "raw", id: "r1", object: ["id": "r1", "n": .integer(Int64.max)], syncState: .updated,
                snapshot: server, etag: "\"v1\""),
        ]

        // When
        try await storage.upsert(encoded: encoded)
        try await reference.upsert(parsed)

        // Then
        for record in parsed {
            let back = try await storage.fetch(collection: record.collection, id: record.id)
            #expect(back == record)
            #expect(try await reference.fetch(collection: record.collection, id: record.id) == record)
        }
        #expect(try await storage.fetch(collection: "messages", matching: Criteria(["author": "ann"])).count == 1)
    }

    @Test("a transaction's encoded upsert commits with the rest, or not at all", arguments: StorageKind.allCases)
    func encodedInTransaction(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let message = Message(id: "1", text: "hi")
        try await storage.transaction { tx in
            try tx.upsert(encoded: EncodedRecord(collection: "messages", entity: message, syncState: .created))
        }
        let stored = try #require(try await storage.fetch(collection: "messages", id: "1"))
        #expect(stored.object == (try JSONMapping.object(message)) && stored.snapshot == nil)

        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await storage.transaction { tx in
                try tx.upsert(
                    encoded: EncodedRecord(
                        collection: "messages", entity: Message(id: "2", text: "no"), syncState: .created))
                throw Abort()
            }
        }
        #expect(try await storage.fetch(collection: "messages", id: "2") == nil)
    }

    @Test("a snapshot equal to the object is stored once, as a flag, and reads back as the object")
    func snapshotSkippedWhenEqual() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try SQLiteStorage(path: directory.path("store.sqlite"))
        let object: JSONObject = ["id": "1", "text": "same"]
        let other: JSONObject = ["id": "2", "text": "local", "extra": 1]

        // Given: a synced record through each path, and one whose snapshot differs.
        try await storage.upsert(
            StoredRecord(collection: "messages", id: "1", object: object, syncState: .synced, snapshot: object)
        )
        try await storage.upsert(encoded: [
            try EncodedRecord(
                collection: "messages", entity: Message(id: "3", text: "encoded"), syncState: .synced,
                snapshot: .sameAsObject)
        ])
        try await storage.upsert(
            StoredRecord(
                collection: "messages", id: "2", object: other, syncState: .updated, snapshot: ["id": "2", "text": "x"])
        )

        // Then: no second copy of the text for the first two.
        for id in ["1", "3"] {
            let row = try #require(try await storage.storedRow(collection: "messages", id: id))
            #expect(row.snapshot == nil && row.snapshotIsObject, "\(id)")
            let back = try #require(try await storage.fetch(collection: "messages", id: id))
            #expect(back.snapshot == back.object)
        }
        let changed = try #require(try await storage.storedRow(collection: "messages", id: "2"))
        #expect(changed.snapshot == #"{"id":"2","text":"x"}"# && !changed.snapshotIsObject)
        #expect(try await storage.fetch(collection: "messages", id: "2")?.snapshot == ["id": "2", "text": "x"])
    }

    @Test("text that is not a JSON object is refused when the record is made")
    func invalidText() throws {
        #expect { try EncodedRecord(collection: "c", id: "1", object: "{", syncState: .created) } throws: {
            ($0 as? DepotError)?.code == .decoding
        }
        #expect { try EncodedRecord(collection: "c", id: "1", object: "[1]", syncState: .created) } throws: {
            ($0 as? DepotError)?.code == .encoding
        }
        #expect {
            try EncodedRecord(collection: "c", id: "1", object: "{}", syncState: .synced, snapshot: .encoded("2"))
        } throws: { ($0 as? DepotError)?.code == .encoding }
        let record = try EncodedRecord(
            collection: "c", id: "1", object: #"{"a":1}"#, syncState: .synced, snapshot: .sameAsObject)
        #expect(try record.decoded().snapshot == ["a": 1])
    }
}

/// A JSON object with an id: a dictionary-mapped entity written as a literal.
private struct IdentifiedObject: Identifiable, Sendable, DictionaryRepresentable, ExpressibleByDictionaryLiteral {
    var dictionary: JSONObject
    var id: String { dictionary["id"]?.stringValue ?? "" }
    init(dictionaryLiteral elements: (String, JSON)...) {
        dictionary = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }
}

extension Data {
    fileprivate var text: String { String(decoding: self, as: UTF8.self) }
}
