import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first edit folded into an unsent entry of its entity's chain shares that entry's
/// fate: when the chain's create moves the entity to the server's id and the server then refuses
/// the entry with a 404, the edit fails `.notFound`. Regression test for the model checker's
/// NOT FOUND (seed 2538550381506060341): the refusal was looked for under the temporary id the
/// entity had left, not found, and the edit answered as delivered (origin `.remote`).
@Suite struct GoneAfterMovedCreateTests {
    @Test(
        "a remote-first edit folded behind a create, a delete and an edit fails .notFound when the server refuses it",
        arguments: StoreKind.allCases)
    func foldedEditRefusedAfterMoveFails(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a server that assigns its own ids (the next is 42); "tmp-1" created offline
            // and attempted once (a 503), then deleted and edited, all queued behind it
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            let queued = fixture.repository(strategy: recordOnly)
            _ = try await queued.create(Message(id: "tmp-1", text: "draft")).value
            fixture.server.inject(.status(503), times: 1, pathPrefix: "/messages")
            _ = try? await fixture.forwarder(queued).flush().value
            _ = try await queued.delete(id: "tmp-1").value
            _ = try await queued.patch(Message(id: "tmp-1", text: "after delete")).value
            #expect(try await fixture.outbox().map(\.operation) == [.create, .delete, .patch])

            // When: a remote-first update of "tmp-1" (folded into the unsent edit; the chain goes
            // first: POST moves it to 42, DELETE 42, then its edit of 42 is refused 404)
            let error = await #expect(throws: DepotError.self) {
                try await fixture.repository(strategy: .remoteFirst).update(Message(id: "tmp-1", text: "update"))
                    .value
            }

            // Then: the app is told .notFound, not answered as delivered; the refused entry waits
            // for the app under the server's id, nothing pending
            #expect(error?.code == .notFound && error?.status == 404)
            #expect(fixture.server.requests.map(\.method) == ["POST", "POST", "DELETE", "PUT"])
            #expect(fixture.server.objects(in: "messages").isEmpty)
            let left = try await fixture.outbox()
            #expect(left.count == 1 && left.first?.entityID == "42" && left.first?.rejection?.status == 404)
            #expect(try await fixture.outbox(.pending).isEmpty)
        }
    }

    @Test(
        "a remote-first edit folded behind a moved create and a delete the server failed is answered locally, queued",
        arguments: StoreKind.allCases)
    func foldedEditBehindFailedDeleteAfterMoveIsQueued(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: as above, "tmp-1" created (attempted once), deleted and edited, all queued
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            let queued = fixture.repository(strategy: recordOnly)
            _ = try await queued.create(Message(id: "tmp-1", text: "draft")).value
            fixture.server.inject(.status(503), times: 1, pathPrefix: "/messages")
            _ = try? await fixture.forwarder(queued).flush().value
            _ = try await queued.delete(id: "tmp-1").value
            _ = try await queued.patch(Message(id: "tmp-1", text: "after delete")).value

            // When: a remote-first update of "tmp-1"; the POST moves it to 42, DELETE 42 meets a 503
            fixture.server.inject(.status(503), times: 1, pathPrefix: "/messages/")
            let answer = try await fixture.repository(strategy: .remoteFirst)
                .update(Message(id: "tmp-1", text: "update")).value

            // Then: answered locally, behind the delete still queued under the server's id
            #expect(answer.origin == .local)
            #expect(answer.fallbackError?.code == .queuedBehindEarlierWrites)
            #expect(fixture.server.requests.map(\.method) == ["POST", "POST", "DELETE"])
            let left = try await fixture.outbox(.pending)
            #expect(left.map(\.operation) == [.delete, .update] && left.allSatisfy { $0.entityID == "42" })
        }
    }
}
