import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Creates made while the server was unreachable are unsent entries (the connection was refused
/// before any byte went), so once it is back `synchronize()` sends them in batches (issue 42 #2),
/// and its report counts the batches that went.
@Suite struct OfflineCreatesBatchTests {
    @Test("20 creates made while the server was unreachable go in 3 batches of at most 8, and the report says 3")
    func offlineCreatesGoInBatches() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            // Given: 20 remote-first creates made while the server was unreachable
            try await fixture.server.goOffline()
            let repository = fixture.repository()
            for index in 1...20 {
                let created = try await repository.create(Message(id: "m\(index)", text: "offline \(index)")).value
                #expect(created.origin == .local)
            }
            #expect(try await fixture.outbox().allSatisfy { $0.attempts == 0 })
            try await fixture.server.goOnline()

            // When: synchronize() pushes through the batch route, 8 records a batch
            let report = try await batchSynchronizer(fixture).synchronize().value

            // Then: three batch requests and no single POST; the report counts what went
            let writes = fixture.server.requests.filter { $0.method != "GET" }
            #expect(writes.map(\.path) == Array(repeating: "/messages/collection", count: 3))
            #expect(report.batches == writes.count)
            #expect(report.pushed == 20 && report.failed == 0)
            #expect(fixture.server.objects(in: "messages").count == 20)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("creates that went singly before are not counted as batches: the report counts the batches that went")
    func batchesCountOnlyRequestsSent() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            // Given: 3 remote-first creates, each answered 503 (it may have been applied), so
            // each is recorded as sent once under its key
            fixture.server.inject(.status(503), times: 100, pathPrefix: "/messages")
            let repository = fixture.repository()
            for index in 1...3 {
                let created = try await repository.create(Message(id: "s\(index)", text: "single")).value
                #expect(created.origin == .local)
            }
            #expect(try await fixture.outbox().allSatisfy { $0.attempts == 1 })
            fixture.server.clearFaults()
            fixture.server.clearRequests()

            // When: synchronize() pushes through the batch route
            let report = try await batchSynchronizer(fixture).synchronize().value

            // Then: each went again on its own under its key; no batch went, and none is counted
            let sent = fixture.server.requests.filter { $0.method != "GET" }
            #expect(sent.count == 3 && sent.allSatisfy { $0.path == "/messages" })
            #expect(report.batches == 0)
            #expect(report.pushed == 3)
        }
    }

    @Test(
        "a synchronize() refused while the server was unreachable leaves its creates unsent: an edit folds in, and they batch"
    )
    func refusedSynchronizeLeavesCreatesUnsent() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            // Given: 20 creates recorded, and a synchronize() run while the server is unreachable
            let writes = fixture.repository(strategy: recordOnly)
            for index in 1...20 {
                _ = try await writes.create(Message(id: "m\(index)", text: "offline \(index)")).value
            }
            try await fixture.server.goOffline()
            let sync = batchSynchronizer(fixture)
            // (its pull fails too: whether the run rejects or reports, nothing was pushed)
            let offline = try? await sync.synchronize().value
            #expect((offline?.pushed ?? 0) == 0 && (offline?.batches ?? 0) == 0)
            #expect(try await fixture.outbox().allSatisfy { $0.attempts == 0 })

            // ... then an edit of one of them, which folds into its create
            _ = try await writes.update(Message(id: "m1", text: "edited")).value
            #expect(try await fixture.outbox().count == 20)
            try await fixture.server.goOnline()

            // When: synchronize() runs with the server back
            let report = try await sync.synchronize().value

            // Then: three batches and nothing else; the edit went with its create
            let writesSent = fixture.server.requests.filter { $0.method != "GET" }
            #expect(writesSent.map(\.path) == Array(repeating: "/messages/collection", count: 3))
            #expect(report.batches == 3 && report.pushed == 20 && report.failed == 0)
            #expect(fixture.serverObject("m1")?["text"] == "edited")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    /// The fixture's messages, pushed through the batch route 8 records a batch.
    private func batchSynchronizer(_ fixture: OutboxFixture) -> SyncMessages {
        SyncMessages(
            store: fixture.session, storage: fixture.storage,
            synchronization: SynchronizationConfiguration(
                batchSize: 8, pushMode: .batch(Route(.post, "messages/collection"))))
    }
}
