import Depot
import DepotTesting
import Foundation
import Testing

/// Messages pulled incrementally by the stub's `updated_at` counter, deletions flagged, without
/// pushing first (a pending local change stays pending through the pull).
private struct TrackedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .remoteFirst
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            push: false,
            incremental: IncrementalPull(
                parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted")))
    }
}

/// "Cursors and page validators move only past rows merged": a pulled deletion the store did not
/// apply (the record has a pending local change) is a skipped row.
@Suite struct PulledDeletionHoldsCursorTests {
    /// The cursor each pull asked from, in order.
    private func pulls(_ server: StubServer) -> [String?] {
        server.requests.filter { $0.method == "GET" && $0.path == "/messages" }.map { $0.query["updated_after"] }
    }

    @Test(
        "a pulled deletion of a record with a pending local change holds the cursor: once the change is settled, the next pull applies it",
        arguments: StorageKind.allCases)
    func pendingChangeHoldsDeletion(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: x and y pulled (stamps 1 and 2); then x edited locally, not sent.
            server.resource("messages", objects: [["id": "x", "text": "x1"], ["id": "y", "text": "y1"]])
            server.trackChanges(for: "messages")
            let storage = try await kind.make(in: directory)
            let session = NetworkingSession(url: server.url)
            let messages = TrackedMessages(store: session, storage: storage)
            _ = try await messages.synchronize().value
            var local = messages
            local.strategy = recordOnly
            _ = try await local.update(Message(id: "x", text: "mine")).value

            // When: another client deletes x (stamp 3) and changes y (stamp 4), and the app pulls.
            _ = try await session.request(.delete, "messages/x", as: Okay.self).value
            _ = try await session.request(
                .put, "messages/y", body: ["id": "y", "text": "y2"], as: Message.self
            ).value
            let held = try await messages.synchronize().value
            let again = try await messages.synchronize().value

            // Then: the deletion was not applied (a conflict), and the cursor stayed at x's
            // stamp: the next pull asks from 3, not from y's 4.
            #expect(held.pullCompleted && held.removed == 0 && held.conflicts == 1)
            #expect(try await storage.fetch(collection: "messages", id: "x")?.object["text"] == "mine")
            #expect(try await storage.fetch(collection: "messages", id: "y")?.object["text"] == "y2")
            #expect(again.incremental && again.removed == 0)
            #expect(pulls(server) == [nil, "2", "3"])
            // No page validator is kept for a page with a skipped row (nor for any page an
            // incremental pull reads).
            let entries = try await storage.fetch(collection: "__depot_http_cache", matching: .all)
            #expect(entries.allSatisfy { $0.object["ids"] == nil })

            // When: the edit is sent and refused (404: gone), the app discards it, and pulls.
            let forwarder = Forwarder(for: local)
            let refused = try #require(try await forwarder.flush().value.rejected.first)
            #expect(refused.rejection?.status == 404)
            #expect(try await forwarder.discard(refused).value)
            let applied = try await messages.synchronize().value

            // Then: that pull brings the deletion again and applies it.
            #expect(pulls(server).last == "3")
            #expect(applied.pullCompleted && applied.removed == 1 && applied.conflicts == 0)
            #expect(try await storage.fetch(collection: "messages", id: "x") == nil)
        }
    }
}
