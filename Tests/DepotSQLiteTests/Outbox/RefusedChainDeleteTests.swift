import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The app's delete of an entity ends the chain of its writes the server refused with a 404,
/// whenever it is recorded: before the refusal or after it, and a create of the id after that
/// delete is a new chain, sent (the model checker's CREATE REFUSED, issue 33 #5).
@Suite struct RefusedChainDeleteTests {
    /// The rule the app's delete goes through.
    enum DeleteRoad: String, CaseIterable, Sendable, CustomStringConvertible {
        case remoteFirst, localFirst, queued
        var description: String { rawValue }
        var strategy: Strategy {
            switch self {
            case .remoteFirst: .remoteFirst
            case .localFirst: .localFirst
            case .queued: recordOnly
            }
        }
    }

    /// Message 1 read, deleted on the server by another client, then edited here (queued): the
    /// edit sent and refused with a 404; the requests forgotten.
    static func refuseEdit(_ fixture: OutboxFixture) async throws {
        _ = try await fixture.repository().read("1").value
        _ = try await fixture.session.request(.delete, "messages/1").value
        let queued = fixture.repository(strategy: recordOnly)
        _ = try await queued.update(Message(id: "1", text: "a")).value
        let report = try await fixture.forwarder(queued).flush().value
        #expect(report.rejected.map(\.rejection?.status) == [404])
        fixture.server.clearRequests()
    }

    @Test(
        "a delete after a write refused with 404 succeeds locally, sends nothing, and a re-create of the id is sent",
        arguments: StoreKind.allCases, DeleteRoad.allCases)
    func deleteAfterRefusalEndsChain(kind: StoreKind, road: DeleteRoad) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: an edit of 1 refused with a 404 (1 is gone from the server)
            try await Self.refuseEdit(fixture)

            // When: the app deletes 1
            _ = try await fixture.repository(strategy: road.strategy).delete(id: "1").value

            // Then: deleted here too, the refused edit settled with it: nothing pending, no request
            #expect(try await fixture.stored("1") == nil)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.server.requests.isEmpty)

            // When: the app creates 1 anew
            let created = try await fixture.repository().create(Message(id: "1", text: "c")).value

            // Then: sent as a create, a new chain: the server has it, the store holds it synced
            #expect(created.origin == .remote)
            #expect(fixture.server.requests.map(\.method) == ["POST"])
            #expect(fixture.serverObject("1")?["text"] == "c")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "c")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a delete and a re-create queued behind a write then refused with 404 stay a delete and a create: the re-create is sent",
        arguments: StoreKind.allCases)
    func deleteAndCreateBeforeRefusalStayAChain(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: 1 read, deleted on the server by another client, edited here (attempted once,
            // a 503), then deleted and created anew here, all queued
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.session.request(.delete, "messages/1").value
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "a")).value
            fixture.server.inject(.status(503), times: 1)
            let forwarder = fixture.forwarder(messages)
            _ = try? await forwarder.flush().value
            _ = try await messages.delete(id: "1").value
            _ = try await messages.create(Message(id: "1", text: "c")).value

            // Then: the create is not folded into the delete (an update the server would refuse)
            #expect(try await fixture.outbox().map(\.operation) == [.update, .delete, .create])

            // When: the edit is refused (404)
            let report = try await forwarder.flush().value

            // Then: the app is told of the refused edit; the delete ends its chain, and the
            // re-create, a new chain, reached the server
            #expect(report.rejected.map(\.operation) == [.update])
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "c")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "c")
        }
    }

    @Test(
        "a delete and a re-create of an entity another client deleted are sent as a delete and a create, not a PUT refused 404",
        arguments: StoreKind.allCases)
    func deleteAndCreateOfGoneEntity(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: 1 read, deleted on the server by another client, then deleted and created
            // anew here, queued
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.session.request(.delete, "messages/1").value
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.delete(id: "1").value
            _ = try await messages.create(Message(id: "1", text: "c")).value

            // When
            let report = try await fixture.forwarder(messages).flush().value

            // Then: nothing refused; the server has the new 1
            #expect(report.rejected.isEmpty)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "c")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "c")
        }
    }
}
