import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A draft the server refused to create (422: it made nothing) that the user then deletes: the
/// app and the server agree it does not exist, so nothing is sent and nothing is left behind.
@Suite struct RefusedDraftDeleteTests {
    @Test(
        "a create refused 422, then deleted: no DELETE, nothing queued, the record gone, erase works",
        arguments: StoreKind.allCases)
    func refusedCreateThenDelete(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given a draft the server refuses as invalid
            fixture.server.route(.post, "messages", response: .json(["title": ["required"]], status: 422))
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "d1", text: "")).value
            let forwarder = fixture.forwarder(messages)
            let first = try await forwarder.flush().value
            #expect(first.rejected.count == 1)
            // When the user deletes the bad draft (before: the delete waited behind the refusal for
            // ever, and erase() threw .unsyncedWrites)
            _ = try await messages.delete(id: "d1").value
            let second = try await forwarder.flush().value
            await forwarder.stop()
            // Then nothing is left to send, the server saw no DELETE, and the record is gone
            #expect(second.delivered == 0 && second.rejected.isEmpty)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("d1") == nil)
            #expect(!fixture.server.requests.contains { $0.method == "DELETE" })
            if let erasable = fixture.storage as? any ErasableStorage {
                try await erasable.erase()
            }
        }
    }

    @Test("a create refused 422 whose draft was edited since: the delete still ends the chain, nothing sent")
    func refusedCreateEditedThenDeleted() async throws {
        try await withOutboxFixture { fixture in
            fixture.server.route(.post, "messages", response: .json(["title": ["required"]], status: 422))
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "d1", text: "")).value
            let forwarder = fixture.forwarder(messages)
            _ = try await forwarder.flush().value
            _ = try await messages.update(Message(id: "d1", text: "still bad")).value
            _ = try await messages.delete(id: "d1").value
            _ = try await forwarder.flush().value
            await forwarder.stop()
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("d1") == nil)
            #expect(fixture.server.requests.filter { $0.method != "GET" }.map(\.method) == ["POST"])
        }
    }
}

/// A remote-first write folds into the entity's never-sent entries exactly as a local one does.
@Suite struct RemoteWriteFoldsTests {
    @Test(
        "a draft saved to send later, then deleted remote-first while online: nothing is sent",
        arguments: StoreKind.allCases)
    func discardedDraftIsNeverSent(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given a draft recorded to send later, never sent
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "d1", text: "draft")).value
            // When the user discards it with a remote-first delete while the server is up (before:
            // POST d1 then DELETE d1, and other clients saw a message that never was)
            let deleted = try await fixture.repository().delete(id: "d1").value
            // Then no request went, nothing is queued, the record is gone
            #expect(deleted.origin == .remote)
            #expect(fixture.server.requests.isEmpty)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("d1") == nil)
        }
    }

    @Test("a draft saved to send later, then updated remote-first: one POST with the newest text")
    func updatedDraftGoesAsOneCreate() async throws {
        try await withOutboxFixture { fixture in
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "d1", text: "draft")).value
            let updated = try await fixture.repository().update(Message(id: "d1", text: "final")).value
            #expect(updated.value.text == "final")
            let writes = fixture.server.requests.filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["POST"])
            #expect(writes.first?.json?["text"] == "final")
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("d1")?.syncState == .synced)
        }
    }
}
