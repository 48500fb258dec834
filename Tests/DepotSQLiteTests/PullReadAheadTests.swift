import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A pull reads one page ahead: the next page's request goes out while the page before it merges,
/// and the walk's contract holds (pages merged in order, nothing stored from a page read ahead
/// once a stop or an error was seen, the cursor only after the last merge).
@Suite struct PullReadAheadTests {
    /// 12 messages, 5 a page; an incremental pull, so no page goes through the HTTP cache (whose
    /// look-up is a write transaction the gate would hold).
    static let configuration = SynchronizationConfiguration(
        pagination: .pageQuery(page: "_page", limit: "_limit", size: 5), push: false,
        incremental: IncrementalPull(parameter: "updated_after", cursor: .maximum(of: "updated_at")))

    static func objects() -> [JSONObject] {
        (1...12).map {
            ["id": .string(String($0)), "text": "server", "updated_at": .string("2026-11-26T00:00:\(10 + $0)Z")]
        }
    }

    /// A fixture whose storage holds the first write after page 1 was asked for (page 1's merge)
    /// until page 2 is asked for, 5 s at most; `held` says whether page 2 came in that time. With
    /// `failing`, that write then fails.
    func withHeldFirstMerge(
        onSecondPage: @escaping @Sendable () -> Void = {}, failing: Bool = false,
        _ body: (SyncFixture, WriteGatedStorage, LockedValue<Bool?>) async throws -> Void
    ) async throws {
        try await withSyncFixture(objects: Self.objects()) { fixture in
            let storage = WriteGatedStorage(fixture.storage)
            let secondAsked = Latch()
            let held = LockedValue<Bool?>(nil)
            fixture.server.observe(.get, "/messages") { request in
                switch request.query["_page"] {
                case "1":
                    storage.gateNextWrite {
                        let asked = await secondAsked.wait(upTo: .seconds(5))
                        held.withLock { $0 = asked }
                        if failing { throw DepotError(.storage, "disk full") }
                    }
                case "2":
                    onSecondPage()
                    secondAsked.open()
                default: break
                }
            }
            try await body(fixture, storage, held)
        }
    }

    @Test("a pull asks for the next page while the page before it merges")
    func readsTheNextPageWhileMerging() async throws {
        try await withHeldFirstMerge { fixture, storage, held in
            // Given: page 1's merge held until page 2 is asked for
            let repository = SyncMessages(store: fixture.session, storage: storage, synchronization: Self.configuration)
            // When
            let report = try await repository.synchronize().value
            // Then: page 2 was asked for during page 1's merge, and the pull is whole
            #expect(held.withLock { $0 } == true, "page 2 was not asked for while page 1 merged")
            #expect(report.pullCompleted && report.errors.isEmpty)
            #expect(report.pulled == 12 && report.pages == 3)
            let stored = try await fixture.storage.fetch(collection: "messages", matching: .all)
            #expect(stored.count == 12)
            // Pages 1 to 3, each once: X-Total-Count ends the list after the 12th message
            #expect(fixture.requestLines.filter { $0.hasPrefix("GET /messages") }.count == 3)
        }
    }

    @Test("a graceful stop during a merge drops the page read ahead: nothing of it is stored, nothing more asked")
    func gracefulStopDropsThePageReadAhead() async throws {
        let proxy = LockedValue<ActionProxy<SynchronizationReport>?>(nil)
        // Given: a stop asked while page 1 merges (when page 2, read ahead, is asked for)
        try await withHeldFirstMerge(onSecondPage: { proxy.withLock { $0 }?.stop() }) { fixture, storage, held in
            let repository = SyncMessages(store: fixture.session, storage: storage, synchronization: Self.configuration)
            let executor = ActionExecutor(maxConcurrent: 1)
            executor.suspend()  // the proxy is kept before the action starts
            proxy.withLock { $0 = executor.execute(SynchronizeAction(repository)) }
            executor.resume()
            // When
            let report = try await #require(proxy.withLock { $0 }).result.value
            // Then: page 1 stored, page 2's answer dropped, page 3 never asked for
            #expect(held.withLock { $0 } == true, "page 2 was not asked for while page 1 merged")
            #expect(report.stoppedEarly && !report.pullCompleted)
            #expect(report.pages == 1 && report.pulled == 5)
            let stored = try await fixture.storage.fetch(collection: "messages", matching: .all)
            #expect(Set(stored.map(\.id)) == Set((1...5).map(String.init)))
            #expect(!fixture.requestLines.contains { $0.contains("_page=3") })
            // And the cursor did not move: the next pull starts from the beginning
            fixture.server.clearRequests()
            let next = try await repository.synchronize().value
            #expect(!next.incremental && next.pulled == 12)
        }
    }

    @Test("a merge that fails ends the pull: the page read ahead is dropped, nothing more is asked")
    func failedMergeDropsThePageReadAhead() async throws {
        try await withHeldFirstMerge(failing: true) { fixture, storage, held in
            // Given: page 1's merge fails once page 2, read ahead, was asked for
            let repository = SyncMessages(store: fixture.session, storage: storage, synchronization: Self.configuration)
            // When
            let error = await #expect(throws: DepotError.self) { try await repository.synchronize().value }
            // Then: the store's failure, nothing of page 1 or 2 stored, page 3 never asked for
            #expect(held.withLock { $0 } == true, "page 2 was not asked for while page 1 merged")
            #expect(error?.code == .storage)
            let stored = try await fixture.storage.fetch(collection: "messages", matching: .all)
            #expect(stored.isEmpty)
            #expect(!fixture.requestLines.contains { $0.contains("_page=3") })
        }
    }
}
