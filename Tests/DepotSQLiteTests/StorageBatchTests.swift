import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct StorageBatchTests {
    @Test("batch create, update and delete each write in one transaction", arguments: StorageKind.allCases)
    func batch(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let local = LocalMessages(storage: try await kind.make(in: directory))
        let three = (1...3).map { Message(id: String($0), text: "t\($0)") }

        _ = try await local.create(three).value
        #expect(try await local.readAll().value == three)

        // One taken id: nothing of the batch is written
        await #expect { try await local.create([Message(id: "4", text: "new"), three[0]]).value } throws: {
            ($0 as? DepotError)?.code == .conflict
        }
        #expect(try await local.fetch(id: "4").value == nil)

        let edited = three.map { Message(id: $0.id, text: $0.text + "!") }
        _ = try await local.update(edited).value
        #expect(try await local.readAll().value == edited)

        // One missing entity: nothing of the batch is deleted
        await #expect { try await local.delete([three[0], Message(id: "404", text: "")]).value } throws: {
            ($0 as? DepotError)?.code == .notFound
        }
        #expect(try await local.readAll().value.count == 3)

        try await local.delete(Array(three.prefix(2))).value
        #expect(try await local.readAll().value.map(\.id) == ["3"])
    }

    @Test("batch writes mark records unsynced: created, updated over synced, tombstones over synced")
    func states() async throws {
        let storage = InMemoryStorage()
        try await storage.upsert([record("1", ["text": "s1"]), record("2", ["text": "s2"])])
        let local = LocalMessages(storage: storage)
        _ = try await local.create([Message(id: "3", text: "c")]).value
        _ = try await local.update([Message(id: "1", text: "u")]).value
        try await local.delete([Message(id: "2", text: "")]).value
        let states = try await storage.fetch(collection: "messages", matching: Criteria(includeDeleted: true))
            .map { "\($0.id):\($0.syncState)" }
        #expect(states == ["1:updated", "2:deleted", "3:created"])
    }

    @Test("readAll(criteria) on the networking + storage repository reads the local store only")
    func localReadAll() async throws {
        try await withFixture { server, messages, storage in
            _ = try await LocalMessages(storage: storage).create([
                Message(id: "5", text: "x", author: "ann"), Message(id: "6", text: "y", author: "bob"),
            ]).value
            let anns = try await messages.readAll(Criteria(["author": "ann"])).value
            #expect(anns.map(\.id) == ["5"])
            #expect(server.requests.isEmpty)
        }
    }

    @Test("records by sync state come in id order, after an id, within a limit", arguments: StorageKind.allCases)
    func bySyncState(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        try await storage.upsert([
            record("a", [:]), record("b", [:], state: .created), record("c", [:], state: .updated),
            record("d", [:], state: .deleted), record("e", [:], state: .created),
            record("b", [:], state: .created, collection: "other"),
        ])
        func ids(_ states: Set<SyncState>, after: String?, limit: Int) async throws -> [String] {
            try await storage.fetch(collection: "messages", syncStates: states, after: after, limit: limit)
                .map(\.id)
        }
        #expect(try await ids([.created, .updated], after: nil, limit: 2) == ["b", "c"])
        #expect(try await ids([.created, .updated], after: "c", limit: 2) == ["e"])
        #expect(try await ids([.deleted], after: nil, limit: 10) == ["d"])
        #expect(try await ids([.synced], after: "a", limit: 10) == [])
        #expect(try await ids([], after: nil, limit: 10) == [])
    }
}
