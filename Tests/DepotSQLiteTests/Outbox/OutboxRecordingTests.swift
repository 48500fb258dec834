import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct OutboxRecordingTests {
    @Test(
        "local writes coalesce per entity: create+update → create, create+delete → nothing, update+patch → update, anything+delete → delete",
        arguments: StoreKind.allCases)
    func coalescing(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"], ["id": "2", "text": "two"]]) {
            fixture in
            _ = try await fixture.repository().readAll().value
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "a", text: "draft")).value
            _ = try await messages.update(Message(id: "a", text: "final")).value
            _ = try await messages.create(Message(id: "b", text: "gone soon")).value
            _ = try await messages.delete(id: "b").value
            _ = try await messages.update(Message(id: "1", text: "put")).value
            _ = try await messages.patch(Message(id: "1", text: "put", likes: 3)).value
            _ = try await messages.patch(Message(id: "2", text: "patched")).value
            _ = try await messages.delete(id: "2").value
            let entries = try await fixture.outbox()
            #expect(entries.map(\.entityID) == ["a", "1", "2"])
            #expect(entries.map(\.operation) == [.create, .update, .delete])
            #expect(entries[0].payload?.objectValue?["text"] == "final")
            #expect(entries[1].payload?.objectValue?["likes"] == 3)
            #expect(try await fixture.stored("b") == nil)
            #expect(try await fixture.stored("2")?.syncState == .deleted)
            // Sent, they leave the server as the local store says
            let report = try await fixture.forwarder(messages).flush().value
            #expect(report.delivered == 3 && fixture.server.appliedWrites.count == 3)
            #expect(fixture.serverObject("a")?["text"] == "final" && fixture.serverObject("1")?["likes"] == 3)
            #expect(fixture.serverObject("2") == nil && fixture.serverObject("b") == nil)
        }
    }

    @Test(
        "a write and its entry commit together: a create whose id is taken records nothing",
        arguments: StoreKind.allCases)
    func atomic(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "a", text: "first")).value
            await #expect(throws: DepotError.self) { try await messages.create(Message(id: "a", text: "again")).value }
            #expect(try await fixture.outbox().count == 1)
            // A transaction that throws after recording leaves neither record nor entry
            await #expect(throws: DepotError.self) {
                try await fixture.storage.transaction { tx in
                    try tx.upsert(
                        StoredRecord(collection: "messages", id: "z", object: ["id": "z"], syncState: .created))
                    try tx.recordOutbox(collection: "messages", entityID: "z", operation: .create, payload: ["id": "z"])
                    throw DepotError(.invalidRequest, "changed my mind")
                }
            }
            #expect(try await fixture.stored("z") == nil)
            #expect(try await fixture.outbox().count == 1)
        }
    }

    @Test("entries and their keys survive closing and reopening the SQLite file, and are delivered once after")
    func survivesRestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            server.resource("messages")
            let session = NetworkingSession(url: server.url)
            let path = directory.path("restart.sqlite")
            var storage = try SQLiteStorage(path: path)
            for id in 1...5 {
                _ = try await OutboxMessages(store: session, storage: storage, strategy: recordOnly)
                    .create(Message(id: String(id), text: "made offline")).value
            }
            let before = try await storage.outbox(OutboxQuery())
            try storage.close()
            storage = try SQLiteStorage(path: path)
            let after = try await storage.outbox(OutboxQuery())
            #expect(after == before && after.count == 5)
            let report = try await Forwarder(for: OutboxMessages(store: session, storage: storage)).flush().value
            #expect(report.delivered == 5)
            for entry in before { #expect(server.appliedCount(idempotencyKey: entry.idempotencyKey) == 1) }
        }
    }

    @Test("a remote write waits for the entity's earlier offline writes, which go first, in order")
    func remoteWriteAfterOffline() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let messages = fixture.repository()
            _ = try await messages.read("1").value
            try await fixture.server.goOffline()
            _ = try await messages.update(Message(id: "1", text: "offline")).value
            try await fixture.server.goOnline()
            let online = try await messages.update(Message(id: "1", text: "online")).value
            #expect(online.origin == .remote)
            #expect(fixture.applied("1").map(\.method) == ["PUT", "PUT"])
            #expect(fixture.serverObject("1")?["text"] == "online")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("localFirst writes are sent at once through the outbox; a failed send leaves the entry for later")
    func localFirst() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let messages = fixture.repository(strategy: .localFirst)
            let created = try await messages.create(Message(id: "2", text: "two")).value
            #expect(created.origin == .local && created.synchronizationError == nil)
            #expect(fixture.serverObject("2")?["text"] == "two")
            #expect(try await fixture.outbox().isEmpty)
            fixture.server.inject(.status(503), times: 1)
            let updated = try await messages.update(Message(id: "2", text: "two, edited")).value
            #expect(updated.synchronizationError?.status == 503)
            #expect(try await fixture.outbox().map(\.operation) == [.update])
            let report = try await fixture.forwarder(messages).flush().value
            #expect(report.delivered == 1 && fixture.serverObject("2")?["text"] == "two, edited")
        }
    }
}

@Suite struct OutboxSynchronizeTests {
    @Test(
        "synchronize pushes what the outbox holds, each entity once under its key; the forwarder then has nothing left")
    func synchronizeUsesOutbox() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"], ["id": "2", "text": "two"]]) { fixture in
            _ = try await fixture.repository().readAll().value
            try await fixture.server.goOffline()
            let messages = fixture.repository()
            _ = try await messages.create(Message(id: "3", text: "three")).value
            _ = try await messages.update(Message(id: "1", text: "one, edited")).value
            _ = try await messages.delete(id: "2").value
            // A write by a plain StorageRepository has no entry until synchronize adopts it
            _ = try await LocalMessages(storage: fixture.storage).create(Message(id: "4", text: "four")).value
            try await fixture.server.goOnline()
            fixture.server.clearAppliedWrites()
            // A read does not undo a local change not yet sent
            _ = try await messages.read("1").value
            #expect(try await fixture.stored("1")?.object["text"] == "one, edited")
            // When
            let report = try await messages.synchronize().value
            // Then
            #expect(report.pushed == 3 && report.deleted == 1 && report.failed == 0)
            #expect(try await fixture.outbox().isEmpty)
            #expect(await fixture.forwarder(messages).pendingCount == 0)
            #expect(fixture.serverObject("1")?["text"] == "one, edited" && fixture.serverObject("2") == nil)
            #expect(fixture.serverObject("3") != nil && fixture.serverObject("4") != nil)
            let batch = try #require(fixture.server.requests.first { $0.path == "/messages/collection" })
            #expect(batch.header("idempotency-key") != nil)
            #expect(fixture.server.appliedWrites.count == 4)
            // And a second run sends nothing
            let again = try await messages.synchronize().value
            #expect(again.pushed == 0 && again.deleted == 0)
            #expect(fixture.server.appliedWrites.count == 4)
        }
    }
}
