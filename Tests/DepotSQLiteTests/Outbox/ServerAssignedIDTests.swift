import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ServerAssignedIDTests {
    /// How the app writes in the scenario.
    enum Road: String, CaseIterable, Sendable, CustomStringConvertible {
        case localFirst, remoteFirst
        var description: String { rawValue }
    }

    @Test(
        "an edit made while a create waits for its retry goes to the id the server assigned",
        arguments: StoreKind.allCases, Road.allCases)
    func editDuringCreateRetry(kind: StoreKind, road: Road) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a server that assigns its own ids (the next is 42) and answers the first
            // POST (and, remote-first, the update's push of it) with 503
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            fixture.server.inject(.status(503), times: road == .localFirst ? 1 : 2, pathPrefix: "/messages")
            let repository = fixture.repository(strategy: road == .localFirst ? .localFirst : .remoteFirst)
            _ = try await repository.create(Message(id: "tmp-1", text: "draft")).value
            #expect(fixture.server.objects(in: "messages").isEmpty)

            // When: the app edits it, then the outbox is flushed
            _ = try await repository.update(Message(id: "tmp-1", text: "edited")).value
            let forwarder = fixture.forwarder(repository)
            let report = try await forwarder.flush().value

            // Then: the server holds the edit under its id, the local record moved there, synced
            #expect(report.rejected.isEmpty)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(fixture.serverObject("42")?["text"] == "edited")
            let record = try #require(try await fixture.stored("42"))
            #expect(record.syncState == .synced && record.object["text"] == "edited")
            #expect(try await fixture.stored("tmp-1") == nil)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await forwarder.rejected.isEmpty)
            // Each write was applied once, and nothing was sent to the temporary id after the create
            let applied = fixture.applied("42")
            #expect(applied.map(\.method) == ["POST", "PUT"])
            #expect(Set(applied.compactMap(\.idempotencyKey)).count == 2)
            #expect(fixture.server.replayedWrites == 0)
            #expect(!fixture.server.requests.contains { $0.path.hasPrefix("/messages/tmp-1") })
        }
    }
}
