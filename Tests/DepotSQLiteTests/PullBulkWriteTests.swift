import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A pull page's new records written many per statement: the same records, in the same order,
/// as one write per row, around rows the record-write rule weighs one by one.
@Suite struct PullBulkWriteTests {
    func makeStorage(_ kind: StoreKind, _ directory: TemporaryDirectory) throws -> Storage {
        switch kind {
        case .sqlite: try SQLiteStorage(path: directory.path("bulk.sqlite"))
        case .memory: InMemoryStorage()
        }
    }

    @Test(
        "upsert(encodedRecords:) stores every row as upsert(encoded:) would, a later copy of an id replacing an earlier one",
        arguments: StoreKind.allCases)
    func bulkUpsert(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try makeStorage(kind, directory)
        try await storage.upsert([
            StoredRecord(collection: "messages", id: "m5", object: ["id": "m5", "text": "old"], syncState: .updated)
        ])
        // 151 rows: chunks of 64, 64, 16, 4, 2 and 1; each kind of snapshot, an ETag, a repeated id.
        var records: [EncodedRecord] = try (0..<150).map { index in
            let object = "{\"id\":\"m\(index)\",\"text\":\"text \(index)\"}"
            let snapshot: EncodedRecord.Snapshot =
                switch index % 3 {
                case 0: .sameAsObject
                case 1: .encoded("{\"extra\":\(index),\"id\":\"m\(index)\",\"text\":\"text \(index)\"}")
                default: .absent
                }
            return try EncodedRecord(
                collection: "messages", id: "m\(index)", object: object, syncState: .synced, snapshot: snapshot,
                etag: index % 2 == 0 ? "\"e\(index)\"" : nil)
        }
        records.append(
            try EncodedRecord(
                collection: "messages", id: "m7", object: "{\"id\":\"m7\",\"text\":\"again\"}", syncState: .synced,
                snapshot: .sameAsObject))
        let written = records
        try await storage.transaction { tx in try tx.upsert(encodedRecords: written) }
        let stored = try await storage.fetch(collection: "messages", matching: Criteria())
        #expect(stored.count == 150)
        for index in 0..<150 {
            let record = try #require(try await storage.fetch(collection: "messages", id: "m\(index)"))
            let text: JSON = index == 7 ? "again" : .string("text \(index)")
            #expect(record.object == ["id": .string("m\(index)"), "text": text] && record.syncState == .synced)
            switch index == 7 ? 0 : index % 3 {
            case 0: #expect(record.snapshot == record.object)
            case 1: #expect(record.snapshot?["extra"] == .integer(Int64(index)))
            default: #expect(record.snapshot == nil)
            }
            #expect(record.etag == (index % 2 == 0 ? "\"e\(index)\"" : nil))
        }
        // A pending record the rows replace takes the written copy, as one upsert does.
        #expect(try await storage.fetch(collection: "messages", id: "m5")?.syncState == .synced)
    }

    @Test(
        "a pulled page into a store that holds some of it: new rows stored, a pending row kept, a stored row keeps its ETag, a repeated element's last copy wins",
        arguments: StoreKind.allCases)
    func mixedPage(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            var page: [JSON] = (1...200).map { .object(["id": .string(String($0)), "text": .string("server \($0)")]) }
            page.append(.object(["id": "3", "text": "server 3, again"]))
            let elements = page
            server.route(.get, "/messages") { _, _ in .json(.array(elements)) }
            let storage = try makeStorage(kind, directory)
            try await storage.upsert([
                StoredRecord(
                    collection: "messages", id: "100", object: ["id": "100", "text": "mine"], syncState: .updated),
                StoredRecord(
                    collection: "messages", id: "150", object: ["id": "150", "text": "old"], syncState: .synced,
                    snapshot: ["id": "150", "text": "old"], etag: "\"v1\""),
            ])
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(10)))
            let repository = SyncMessages(
                store: session, storage: storage,
                synchronization: SynchronizationConfiguration(pagination: .none, push: false))
            let report = try await repository.synchronize().value
            #expect(report.pulled == 200 && report.conflicts == 1 && report.errors.isEmpty)
            let pending = try #require(try await storage.fetch(collection: "messages", id: "100"))
            #expect(pending.syncState == .updated && pending.object["text"] == "mine")
            let known = try #require(try await storage.fetch(collection: "messages", id: "150"))
            #expect(known.object["text"] == "server 150" && known.etag == "\"v1\"")
            #expect(try await storage.fetch(collection: "messages", id: "3")?.object["text"] == "server 3, again")
            let all = try await storage.fetch(collection: "messages", matching: Criteria())
            #expect(all.count == 200)
            #expect(all.filter { $0.id != "100" }.allSatisfy { $0.syncState == .synced && $0.snapshot == $0.object })
        }
    }

    @Test(
        "a pulled page of UUIDs: a row whose other spelling is pending goes through the rule, the rest in bulk, as row by row",
        arguments: StoreKind.allCases)
    func uuidPage(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            let uuids = (0..<100).map { _ in UUID() }
            let elements: [JSON] = uuids.map {
                .object(["id": .string($0.uuidString.lowercased()), "text": .string("server")])
            }
            server.route(.get, "/messages") { _, _ in .json(.array(elements)) }
            let storage = try makeStorage(kind, directory)
            // A pending record under another spelling, its create never sent: the copy is stored
            // under its own id beside it. Another spelling that is synced changes nothing either.
            try await storage.upsert([
                StoredRecord(
                    collection: "messages", id: uuids[10].uuidString,
                    object: ["id": .string(uuids[10].uuidString), "text": "mine"], syncState: .created),
                StoredRecord(
                    collection: "messages", id: uuids[20].uuidString,
                    object: ["id": .string(uuids[20].uuidString), "text": "old"], syncState: .synced),
            ])
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(10)))
            let repository = SyncMessages(
                store: session, storage: storage,
                synchronization: SynchronizationConfiguration(pagination: .none, push: false))
            let report = try await repository.synchronize().value
            #expect(report.pulled == 100 && report.conflicts == 0 && report.errors.isEmpty)
            for uuid in uuids {
                let record = try await storage.fetch(collection: "messages", id: uuid.uuidString.lowercased())
                #expect(record?.syncState == .synced && record?.object["text"] == "server")
            }
            let pending = try await storage.fetch(collection: "messages", id: uuids[10].uuidString)
            #expect(pending?.syncState == .created && pending?.object["text"] == "mine")
            let all = try await storage.fetch(collection: "messages", matching: Criteria())
            #expect(all.count == 102)
        }
    }
}
