import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// How a pulled page is merged: the page's sync states in one read, each element decoded once,
/// and the same result in both stores.
@Suite struct PullMergeTests {
    func makeStorage(_ kind: StoreKind, _ directory: TemporaryDirectory) throws -> Storage {
        switch kind {
        case .sqlite: try SQLiteStorage(path: directory.path("merge.sqlite"))
        case .memory: InMemoryStorage()
        }
    }

    @Test(
        "syncStates(collection:ids:) answers the records that exist, over more ids than one query takes",
        arguments: StoreKind.allCases)
    func syncStates(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try makeStorage(kind, directory)
        let states: [SyncState] = [.synced, .created, .updated, .deleted]
        try await storage.upsert(
            (0..<1_200).map {
                StoredRecord(
                    collection: "messages", id: "m\($0)", object: ["id": .string("m\($0)")], syncState: states[$0 % 4])
            } + [StoredRecord(collection: "other", id: "m1", object: [:], syncState: .synced)]
        )
        let asked = (0..<1_300).map { "m\($0)" } + ["m1"]
        let found = try await storage.transaction { tx in try tx.syncStates(collection: "messages", ids: asked) }
        #expect(found.count == 1_200)
        #expect(found["m0"] == .synced && found["m1"] == .created && found["m1199"] == .deleted)
        #expect(found["m1200"] == nil)
        #expect((0..<1_200).allSatisfy { found["m\($0)"] == states[$0 % 4] })
    }

    @Test(
        "a pulled page: unsynced records kept, the server's extra keys only in the snapshot",
        arguments: StoreKind.allCases)
    func page(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource(
                "messages",
                objects: (1...1_200).map {
                    var object: JSONObject = ["id": .string(String($0)), "text": .string("server \($0)")]
                    if $0 % 2 == 0 { object["updated_at"] = .string("2026-11-23T10:00:00Z") }
                    return object
                })
            let storage = try makeStorage(kind, directory)
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(10)))
            let repository = SyncMessages(
                store: session, storage: storage, synchronization: SynchronizationConfiguration(push: false))
            try await storage.upsert([
                StoredRecord(
                    collection: "messages", id: "7", object: ["id": "7", "text": "mine"], syncState: .updated),
                StoredRecord(collection: "messages", id: "8", object: ["id": "8", "text": "old"], syncState: .synced),
            ])
            let report = try await repository.synchronize().value
            #expect(report.pulled == 1_199 && report.conflicts == 1 && report.errors.isEmpty)
            #expect(server.requests.count == 1)
            let kept = try #require(try await storage.fetch(collection: "messages", id: "7"))
            #expect(kept.syncState == .updated && kept.object["text"] == "mine")
            let odd = try #require(try await storage.fetch(collection: "messages", id: "9"))
            #expect(
                odd.syncState == .synced && odd.object == ["id": "9", "text": "server 9"] && odd.snapshot == odd.object)
            let even = try #require(try await storage.fetch(collection: "messages", id: "8"))
            #expect(even.syncState == .synced && even.object == ["id": "8", "text": "server 8"])
            #expect(even.snapshot?["updated_at"] == "2026-11-23T10:00:00Z" && even.snapshot?["text"] == "server 8")
        }
    }
}
