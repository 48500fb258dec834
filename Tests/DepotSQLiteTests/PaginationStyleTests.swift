import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// 23 server objects served 5 at a time (whatever the client asks), in the style under test.
private let all = messageObjects(1...23)
private let pageSize = 5

private func slice(from start: Int) -> [JSON] {
    guard start < all.count else { return [] }
    return all[start..<min(start + pageSize, all.count)].map(JSON.object)
}

/// Where the id `after` sits in the list (the next one's index), or 0.
private func index(after id: String?) -> Int {
    guard let id, let position = all.firstIndex(where: { $0["id"] == .string(id) }) else { return 0 }
    return position + 1
}

@Suite struct PaginationStyleTests {
    private func pull(
        _ pagination: Pagination, envelope: String? = nil, identityKey: String = "id",
        route: @escaping @Sendable (RecordedRequest) -> StubResponse
    ) async throws -> (SynchronizationReport, [StoredRecord], Int) {
        var result: (SynchronizationReport, [StoredRecord], Int)?
        try await withSyncFixture { fixture in
            fixture.server.route(.get, "messages") { request, _ in route(request) }
            let repository = EnvelopedMessages(
                store: fixture.session, storage: fixture.storage, envelope: envelope,
                synchronization: SynchronizationConfiguration(
                    pagination: pagination, prune: true, identityKey: identityKey))
            try await fixture.storage.upsert(
                StoredRecord(collection: "messages", id: "old", object: ["id": "old", "text": "x"], syncState: .synced)
            )
            let report = try await repository.synchronize().value
            let stored = try await fixture.storage.fetch(collection: "messages", matching: Criteria())
            result = (report, stored, fixture.server.requests.count)
        }
        return try #require(result)
    }

    private func expectComplete(_ outcome: (SynchronizationReport, [StoredRecord], Int), requests: Int) {
        let (report, stored, count) = outcome
        #expect(report.errors.isEmpty)
        #expect(report.pulled == 23 && report.pullCompleted && report.pruned == 1)
        #expect(stored.count == 23)
        #expect(count == requests)
    }

    @Test("next link in the body: DRF's next, JSON:API's /links/next, HAL's /_links/next/href")
    func nextLink() async throws {
        typealias Wrap = @Sendable ([JSON], JSON) -> JSON
        let styles: [(String, Wrap)] = [
            ("next", { items, next in ["results": .array(items), "next": next] }),
            ("/links/next", { items, next in ["data": .array(items), "links": ["next": next]] }),
            (
                "/_links/next/href",
                { items, next in ["_embedded": ["messages": .array(items)], "_links": ["next": ["href": next]]] }
            ),
        ]
        for (pointer, wrap) in styles {
            let envelope = pointer == "next" ? "results" : pointer == "/links/next" ? "data" : nil
            let outcome = try await pull(envelope == nil ? .automatic : .nextLink(pointer), envelope: envelope) {
                request in
                let start = Int(request.queryItems.first { $0.name == "start" }?.value ?? "0") ?? 0
                let next: JSON = start + pageSize < all.count ? .string("/messages?start=\(start + pageSize)") : .null
                return .json(wrap(slice(from: start), next))
            }
            expectComplete(outcome, requests: 5)
        }
    }

    @Test("an opaque cursor, and Stripe's starting_after with has_more")
    func cursorStyles() async throws {
        let stripe = try await pull(.startingAfter(parameter: "starting_after", hasMore: "has_more"), envelope: "data")
        {
            request in
            let start = index(after: request.queryItems.first { $0.name == "starting_after" }?.value)
            return .json(["data": .array(slice(from: start)), "has_more": .bool(start + pageSize < all.count)])
        }
        expectComplete(stripe, requests: 5)
        let enveloped = try await pull(.cursor(parameter: "cursor", next: "/meta/next_cursor"), envelope: "items") {
            request in
            let token = request.queryItems.first { $0.name == "cursor" }?.value
            let start = token.flatMap { Int($0) } ?? 0
            let next: JSON = start + pageSize < all.count ? .string(String(start + pageSize)) : .null
            return .json(["items": .array(slice(from: start)), "meta": ["next_cursor": next]])
        }
        expectComplete(enveloped, requests: 5)
    }

    @Test("a next link written form-encoded is followed as written: page 2 asks the same filter")
    func formEncodedNextLink() async throws {
        // Given a server whose next link encodes the filter's space as `+` (Django REST Framework,
        // Rails, GitHub) and that answers a page only for the query it wrote
        let outcome = try await pull(.automatic) { request in
            let start = Int(request.queryItems.first { $0.name == "start" }?.value ?? "0") ?? 0
            if start > 0, request.rawQuery != "search=a+b&start=\(start)" {
                return .json(["detail": .string("unknown filter \(request.rawQuery ?? "")")], status: 400)
            }
            let next: JSON =
                start + pageSize < all.count ? .string("/messages?search=a+b&start=\(start + pageSize)") : .null
            return .json(["results": .array(slice(from: start)), "next": next])
        }
        // Then every page is read (before: page 2 asked search=a%2Bb and got a 400)
        expectComplete(outcome, requests: 5)
    }

    @Test("starting_after reads the server's id of the last row, not the batch reply's identityKey")
    func startingAfterWithCustomIdentityKey() async throws {
        // Given a server that echoes clients' ids under "clientID" in batch replies
        let outcome = try await pull(
            .startingAfter(parameter: "starting_after", hasMore: "has_more"), envelope: "data",
            identityKey: "clientID"
        ) { request in
            let start = index(after: request.queryItems.first { $0.name == "starting_after" }?.value)
            return .json(["data": .array(slice(from: start)), "has_more": .bool(start + pageSize < all.count)])
        }
        // Then every page is read (before: page 1 only, called complete, and prune deleted the rest)
        expectComplete(outcome, requests: 5)
    }

    @Test("starting_after: a page that says there is more without an id to start after fails the pull, nothing pruned")
    func startingAfterWithoutKeyFails() async throws {
        let (report, stored, count) = try await pull(
            .startingAfter(parameter: "starting_after", hasMore: "has_more", key: "uuid"), envelope: "data"
        ) { _ in .json(["data": .array(slice(from: 0)), "has_more": .bool(true)]) }
        #expect(!report.pullCompleted && report.pruned == 0 && count == 1)
        #expect(report.errors.first?.code == .decoding)
        #expect(stored.contains { $0.id == "old" })
    }

    @Test("a server that names a next page after the last one: the walk ends at the first empty page, noted")
    func nextLinkOnEmptyPagesEnds() async throws {
        for pagination in [Pagination.automatic, .nextLink("next"), .cursor(parameter: "start", next: "cursor")] {
            let outcome = try await pull(pagination, envelope: pagination == .automatic ? nil : "results") { request in
                let start = Int(request.queryItems.first { $0.name == "start" }?.value ?? "0") ?? 0
                // Always a next link and cursor, past the end too (before: walked for ever)
                return .json([
                    "results": .array(slice(from: start)), "next": .string("/messages?start=\(start + pageSize)"),
                    "cursor": .string(String(start + pageSize)),
                ])
            }
            expectComplete(outcome, requests: 6)
            #expect(outcome.0.notes.contains { $0.contains("empty") })
        }
    }

    @Test(
        "offset/limit: a client asking 100 from a server giving 5 reads every page, ending on the total or an empty page"
    )
    func offset() async throws {
        for withTotal in [true, false] {
            let outcome = try await pull(
                .offset(offset: "offset", limit: "limit", size: 100), envelope: withTotal ? "results" : nil
            ) {
                request in
                let start = Int(request.queryItems.first { $0.name == "offset" }?.value ?? "0") ?? 0
                return withTotal
                    ? .json(["count": .integer(Int64(all.count)), "results": .array(slice(from: start))])
                    : .json(.array(slice(from: start)))
            }
            // With a total: 5 pages; without: one empty page more.
            expectComplete(outcome, requests: withTotal ? 5 : 6)
        }
    }

    @Test("a next link that goes round in circles is an error, and nothing is pruned")
    func loop() async throws {
        let (report, stored, _) = try await pull(.nextLink("next"), envelope: "results") { request in
            let start = Int(request.queryItems.first { $0.name == "start" }?.value ?? "0") ?? 0
            return .json(["results": .array(slice(from: start)), "next": "/messages?start=5"])
        }
        #expect(!report.pullCompleted && report.pruned == 0)
        #expect(report.errors.first?.message.contains("already read") == true)
        #expect(stored.contains { $0.id == "old" })
    }
}

/// `messages` with a collection envelope of the test's choosing.
struct EnvelopedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let envelope: String?
    let path = "messages"
    var synchronization: SynchronizationConfiguration
    var configuration: RepositoryConfiguration { RepositoryConfiguration(collectionEnvelope: envelope) }
}
