import Depot
import DepotTesting
import Foundation
import Testing

/// A pull's pages through the HTTP cache in the store.
@Suite struct HTTPCachePullTests {
    @Test(
        "a pull of an unchanged list: a conditional GET and a 304 for every page, counted, nothing written",
        arguments: StorageKind.allCases)
    func unchangedList(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a first pull (two pages of two) stored the list and each page's validators.
            let messages = fixture.messages()
            let first = try await messages.synchronize().value
            #expect(first.pages == 2 && first.pulled == 3 && first.notModified == 0)
            let before = try await fixture.storage.fetch(collection: "messages", matching: .all)
            fixture.server.clearRequests()

            // When: the unchanged list is pulled again.
            let second = try await messages.synchronize().value

            // Then: every page went out with If-None-Match and came back 304; nothing was pulled,
            // and prune (on) kept every record: the stored ids stood for the pages.
            let pages = fixture.gets("/messages")
            #expect(pages.count == 2 && pages.allSatisfy { $0.header("if-none-match") != nil })
            #expect(fixture.server.notModifiedCount == 2)
            #expect(second.notModified == 2 && second.pages == 2 && second.pulled == 0 && second.pruned == 0)
            #expect(second.pullCompleted && second.errors.isEmpty)
            #expect(try await fixture.storage.fetch(collection: "messages", matching: .all) == before)
        }
    }

    @Test("a changed page comes in full; the unchanged ones stay 304s", arguments: [StorageKind.sqliteFile, .memory])
    func changedPage(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let messages = fixture.messages()
            _ = try await messages.synchronize().value
            // Given: message 1 (on the first page) changed on the server.
            _ = try await fixture.session.request(.put, "messages/1", body: ["id": "1", "text": "uno"]).value
            // When: the list is pulled again.
            let report = try await messages.synchronize().value
            // Then: page one was read and merged, page two was a 304.
            #expect(report.notModified == 1 && report.pulled == 2 && report.pages == 2)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "uno")
        }
    }

    @Test("a page whose records the store lost is read in full again", arguments: [StorageKind.sqliteFile])
    func lostRecord(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            let messages = fixture.messages()
            _ = try await messages.synchronize().value
            // Given: record 3 (page two) vanished from the store.
            _ = try await fixture.storage.delete(collection: "messages", id: "3")
            fixture.server.clearRequests()
            // When: the list is pulled again.
            let report = try await messages.synchronize().value
            // Then: page two went out unconditionally and brought record 3 back.
            let pages = fixture.gets("/messages")
            #expect(pages.count == 2 && pages[1].header("if-none-match") == nil)
            #expect(report.notModified == 1 && report.pulled == 1)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "3") != nil)
        }
    }
}

/// A pull page's `304` confirms only what its validator described.
@Suite struct HTTPCachePullDigestTests {
    @Test(
        "a full pull after another account's read of a listed record re-reads the page: no 304 confirms its copy",
        arguments: StorageKind.allCases)
    func pageNotModifiedNeverConfirmsAnotherAccountsCopy(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server whose note 1 and list depend on the caller (ETag per caller, Vary:
            // Authorization), and A's pull stored A's page with its validator.
            @Sendable func caller(_ request: RecordedRequest) -> String {
                request.header("authorization") == "Bearer A" ? "a" : "b"
            }
            fixture.server.route(.get, "/messages/:id") { request, _ in
                .json(["id": "1", "text": .string(caller(request) + "'s")], headers: ["Vary": "Authorization"])
            }
            fixture.server.route(.get, "/messages") { request, _ in
                guard request.query["_page"] == "1" else { return .json([]) }
                let etag = "\"page-\(caller(request))\""
                let headers = ["ETag": etag, "Vary": "Authorization"]
                if request.header("if-none-match") == etag { return StubResponse(status: 304, headers: headers) }
                return .json([["id": "1", "text": .string(caller(request) + "'s")]], headers: headers)
            }
            let a = fixture.messages(session: fixture.session(headers: ["Authorization": "Bearer A"]))
            let b = fixture.messages(session: fixture.session(headers: ["Authorization": "Bearer B"]))
            _ = try await a.synchronize().value
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "a's")

            // When: B reads note 1 (B's version stored), then A pulls again.
            _ = try await b.read("1").value
            let report = try await a.synchronize().value

            // Then: A's page was read in full, and the store holds A's note again.
            #expect(report.notModified == 0 && report.pulled == 1)
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.object["text"] == "a's")
        }
    }
}
