import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// An edit of an entity the server no longer has (the app still holds it after its delete) is
/// refused visibly: never left pending behind a write the server refused with a 404.
@Suite struct EditOfDeletedEntityTests {
    @Test(
        "a remote-first edit behind a write refused with 404 fails .notFound, not queued for ever",
        arguments: StoreKind.allCases)
    func editAfterDeleteNotStuck(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: x created and deleted remote-first; the app still holds it
            let messages = fixture.repository()
            _ = try await messages.create(Message(id: "x", text: "a")).value
            _ = try await messages.delete(id: "x").value

            // When: a local-first edit of x, sent at once
            let local = try await fixture.repository(strategy: .localFirst).update(Message(id: "x", text: "b")).value

            // Then: answered locally, its send refused visibly with the server's 404
            #expect(local.origin == .local)
            #expect(local.synchronizationError?.code == .notFound)
            let refused = try await fixture.outbox()
            #expect(refused.count == 1 && refused.first?.rejection?.status == 404)

            // When: a remote-first edit of x after it
            let error = await #expect(throws: DepotError.self) {
                try await messages.update(Message(id: "x", text: "c")).value
            }

            // Then: refused at once with .notFound; nothing queued behind the refused write
            #expect(error?.code == .notFound && error?.status == 404)
            #expect(try await fixture.outbox().map(\.sequence) == refused.map(\.sequence))
            #expect(try await fixture.stored("x")?.object["text"] == "b")
            let flushed = try await fixture.forwarder().flush().value
            #expect(flushed.delivered == 0 && flushed.errors.isEmpty)
            #expect(try await fixture.outbox(.pending).isEmpty)
            #expect(fixture.serverObject("x") == nil)
        }
    }

    @Test(
        "a remote-first edit behind an offline edit of an entity another client deleted fails .notFound",
        arguments: StoreKind.allCases)
    func editBehindOfflineEditOfDeletedEntity(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an offline edit of 1 waiting in the outbox, and 1 deleted on the server meanwhile
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            try await fixture.server.goOffline()
            #expect(try await messages.update(Message(id: "1", text: "first")).value.origin == .local)
            try await fixture.server.goOnline()
            _ = try await fixture.session.send(NetworkRequest(method: .delete, path: "messages/1"))

            // When: the app edits 1 again, remote-first (the offline edit goes first: 404)
            let error = await #expect(throws: DepotError.self) {
                try await messages.update(Message(id: "1", text: "second")).value
            }

            // Then: .notFound at once; the refused edit is there for the app, nothing behind it
            #expect(error?.code == .notFound)
            let left = try await fixture.outbox()
            #expect(left.count == 1 && left.first?.rejection?.status == 404)
            #expect(try await fixture.outbox(.pending).isEmpty)
        }
    }
}
