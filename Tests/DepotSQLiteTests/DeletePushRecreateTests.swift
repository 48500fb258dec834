import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The delete push builds each request from what its claim read: a tombstone read before the
/// push's round trips never sends a stale DELETE.
@Suite struct DeletePushRecreateTests {
    @Test(
        "an entity re-created while the delete push was out is not deleted on the server again",
        arguments: StoreKind.allCases)
    func recreatedDuringDeletePush(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "a", "text": "A"], ["id": "x", "text": "X"]]) { fixture in
            // Given: local deletes of a and x, and a synchronize() whose DELETE of a the server
            // answers late
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.delete(id: "a").value
            _ = try await recording.delete(id: "x").value
            fixture.server.inject(.delay(.seconds(1)), pathPrefix: "/messages/a")
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            async let synchronized = sync.synchronize().value
            #expect(
                await eventuallyTrue {
                    fixture.server.requests.contains { $0.method == "DELETE" && $0.path == "/messages/a" }
                })

            // When: meanwhile the app creates x again, remote-first (its pending DELETE goes first)
            let created = try await messages.create(Message(id: "x", text: "again")).value
            #expect(created.origin == .remote)
            let report = try await synchronized

            // Then: x was deleted once, and the server keeps the new x
            #expect(report.errors.isEmpty)
            #expect(fixture.server.requests.filter { $0.method == "DELETE" && $0.path == "/messages/x" }.count == 1)
            #expect(fixture.serverObject("a") == nil)
            #expect(fixture.serverObject("x")?["text"] == "again")
            let stored = try #require(try await fixture.stored("x"))
            #expect(stored.syncState == .synced && stored.object["text"] == "again")
            #expect(try await fixture.stored("a") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a direct remote delete keeps the local record of the entity created again while it was out",
        arguments: StoreKind.allCases)
    func recreatedDuringDirectDelete(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "X"]]) { fixture in
            // Given: a remote-first delete of x whose answer the server holds back
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            fixture.server.inject(.delay(.seconds(1)), pathPrefix: "/messages/x")
            async let deleted = messages.delete(id: "x").value
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "DELETE" } })

            // When: meanwhile the app creates x again, and the server takes it
            let created = try await messages.create(Message(id: "x", text: "again")).value
            #expect(created.origin == .remote)
            #expect(try await deleted.origin == .remote)

            // Then: the delete's answer does not remove the newer x
            #expect(fixture.serverObject("x")?["text"] == "again")
            let stored = try #require(try await fixture.stored("x"))
            #expect(stored.syncState == .synced && stored.object["text"] == "again")
        }
    }

    @Test(
        "a synchronize() deletes on the server the entity a create whose answer was lost made (seed 7919297726193721499)",
        arguments: StoreKind.allCases)
    func deleteBehindCreateWithLostAnswer(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .milliseconds(300)) { fixture in
            // Given: a server that assigns ids, an offline create whose POST the server applied but
            // answered only after the client gave up, and a local delete of it queued behind
            fixture.server.assignIDs(startingAt: 1, for: "messages")
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.create(Message(id: "tmp-1", text: "a")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            let forwarder = Forwarder(
                for: writes,
                configuration: ForwarderConfiguration(
                    baseDelay: .seconds(1), jitter: 0, requestTimeout: .milliseconds(300), clock: fixture.clock))
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")
            #expect(try await forwarder.flush().value.retrying == 1)
            gate.open()
            #expect(await eventuallyTrue { fixture.server.objects(in: "messages").count == 1 })
            #expect(await eventuallyTrue { fixture.server.keysInProcessing.isEmpty })
            _ = try await writes.delete(id: "tmp-1").value
            #expect(try await fixture.outbox().map(\.operation) == [.create, .delete])

            // When: synchronize() pushes (batch route, then deletes)
            let sync = SyncMessages(
                store: fixture.session, storage: fixture.storage, synchronization: SynchronizationConfiguration())
            let report = try await sync.synchronize().value

            // Then: the create went again under its key (the server replayed its answer), and the
            // delete went to the id the server gave: nothing is left, on the server or the store
            #expect(report.errors.isEmpty)
            #expect(report.pushed == 1 && report.deleted == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            #expect(!fixture.server.requests.contains { $0.method == "DELETE" && $0.path == "/messages/tmp-1" })
            #expect(fixture.server.requests.contains { $0.method == "DELETE" && $0.path == "/messages/1" })
            #expect(fixture.server.objects(in: "messages").isEmpty)
            #expect(try await fixture.stored("tmp-1") == nil)
            #expect(try await fixture.stored("1") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
