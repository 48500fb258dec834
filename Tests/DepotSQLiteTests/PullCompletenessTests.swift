import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Regression tests for "a pull can wipe the local copy": a page-numbered pull is complete only at
/// the real end of the list, and prune runs only after a complete pull.
@Suite struct PullCompletenessTests {
    static let paging = Pagination.pageQuery(page: "_page", limit: "_limit", size: 100)

    @Test(
        "a server that caps pages below the size asked is read to the end; prune keeps every row",
        arguments: [false, true])
    func cappedPages(hidingTotal: Bool) async throws {
        try await withSyncFixture(objects: messageObjects(1...60)) { fixture in
            // Given: 60 rows synced, a server that gives 25 a page whatever is asked
            let repository = fixture.repository(SynchronizationConfiguration(pagination: Self.paging, prune: true))
            fixture.server.setPaging(maximumSize: nil, for: "messages")
            _ = try await repository.synchronize().value
            fixture.server.setPaging(maximumSize: 25, hidingTotalCount: hidingTotal, for: "messages")
            fixture.server.clearRequests()
            // When
            let report = try await repository.synchronize().value
            // Then
            #expect(report.pullCompleted && report.errors.isEmpty)
            #expect(report.pulled == 60 && report.pruned == 0)
            let stored = try await fixture.storage.fetch(collection: "messages", matching: .all)
            #expect(stored.count == 60)
            // With X-Total-Count the pull stops after the 60th row; without, on the empty 4th page.
            #expect(fixture.server.requests.count == (hidingTotal ? 4 : 3))
        }
    }

    @Test("a 404 past the first page ends the list (Django REST Framework's \"Invalid page.\")")
    func notFoundPastTheEnd() async throws {
        try await withSyncFixture { fixture in
            // Given: 75 rows served 25 a page; page 4 answers 404
            fixture.server.route(.get, "/notes") { request, _ in
                let page = Int(request.query["page"] ?? "1") ?? 1
                guard (1...3).contains(page) else { return .json(["detail": "Invalid page."], status: 404) }
                let rows = ((page - 1) * 25 + 1...page * 25).map {
                    JSON.object(["id": .string(String($0)), "text": "n"])
                }
                return .json(.array(rows))
            }
            let notes = SyncMessages(
                store: fixture.session, storage: fixture.storage, path: "notes",
                synchronization: SynchronizationConfiguration(
                    pagination: .pageQuery(page: "page", limit: "page_size", size: 25), prune: true))
            // When
            let report = try await notes.synchronize().value
            // Then
            #expect(report.pullCompleted && report.errors.isEmpty && report.pulled == 75)
            #expect(fixture.server.requests.count == 4)
        }
    }

    @Test("a pull that fails mid-list is incomplete and prunes nothing")
    func failureMidList() async throws {
        try await withSyncFixture(objects: messageObjects(1...60)) { fixture in
            // Given
            let repository = fixture.repository(SynchronizationConfiguration(pagination: Self.paging, prune: true))
            fixture.server.setPaging(maximumSize: 25, for: "messages")
            _ = try await repository.synchronize().value
            // When: the second page fails
            fixture.server.route(.get, "/messages") { request, _ in
                request.query["_page"] == "1"
                    ? .json(.array(messageObjects(1...25).map(JSON.object)))
                    : .json(["error": "down"], status: 500)
            }
            let report = try await repository.synchronize().value
            // Then
            #expect(!report.pullCompleted && report.errors.first?.status == 500)
            #expect(report.pruned == 0)
            #expect(try await fixture.storage.fetch(collection: "messages", matching: .all).count == 60)
        }
    }
}
