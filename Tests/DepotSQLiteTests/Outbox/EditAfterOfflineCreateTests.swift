import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write right after an offline create of the same entity, on a server that assigns
/// its own ids: the create goes first, and the write is built from its entry as stored after the
/// create's answer moved the id.
@Suite struct EditAfterOfflineCreateTests {
    /// The remote-first write the app makes once the server is back.
    enum Edit: String, CaseIterable, Sendable, CustomStringConvertible {
        case update, patch, delete
        var description: String { rawValue }
    }

    @Test(
        "an edit right after an offline create reaches the id the server assigned, not the temporary one",
        arguments: StoreKind.allCases, Edit.allCases)
    func editAfterOfflineCreate(kind: StoreKind, edit: Edit) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a server that assigns ids (the next is 1), and a create made while it was away
            fixture.server.assignIDs(startingAt: 1, for: "messages")
            let repository = fixture.repository()
            try await fixture.server.goOffline()
            let created = try await repository.create(Message(id: "tmp-1", text: "a")).value
            #expect(created.origin == .local)
            #expect(try await fixture.outbox().count == 1)
            try await fixture.server.goOnline()

            // When: back online, the app edits the entity under the id it knows
            let origin: Origin
            switch edit {
            case .update: origin = try await repository.update(Message(id: "tmp-1", text: "b")).value.origin
            case .patch: origin = try await repository.patch(Message(id: "tmp-1", text: "b")).value.origin
            case .delete: origin = try await repository.delete(id: "tmp-1").value.origin
            }

            // Then: the create went first, the edit reached ticket 1, nothing was sent to tmp-1
            #expect(origin == .remote)
            #expect(!fixture.server.requests.contains { $0.path.hasPrefix("/messages/tmp-1") })
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("tmp-1") == nil)
            switch edit {
            case .update, .patch:
                #expect(fixture.server.objects(in: "messages").count == 1)
                #expect(fixture.serverObject("1")?["text"] == "b")
                let record = try #require(try await fixture.stored("1"))
                #expect(record.syncState == .synced && record.object["text"] == "b")
            case .delete:
                #expect(fixture.server.objects(in: "messages").isEmpty)
                #expect(try await fixture.stored("1") == nil)
            }
        }
    }
}
