import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct SynchronizePullTests {
    @Test(
        "pull over 3 pages with each pagination style, one request per page",
        arguments: ["pageQuery", "linkHeader", "none"])
    func pages(_ style: String) async throws {
        try await withSyncFixture(objects: messageObjects(1...5)) { fixture in
            // Given
            let configuration =
                switch style {
                case "pageQuery":
                    SynchronizationConfiguration(pagination: .pageQuery(page: "_page", limit: "_limit", size: 2))
                case "linkHeader": SynchronizationConfiguration(pagination: .linkHeader, query: ["_limit": "2"])
                default: SynchronizationConfiguration(pagination: .none)
                }

            // When
            let report = try await fixture.repository(configuration).synchronize().value

            // Then
            let expected =
                switch style {
                case "pageQuery":
                    [
                        "GET /messages?_page=1&_limit=2", "GET /messages?_page=2&_limit=2",
                        "GET /messages?_page=3&_limit=2",
                    ]
                case "linkHeader":
                    ["GET /messages?_limit=2", "GET /messages?_page=2&_limit=2", "GET /messages?_page=3&_limit=2"]
                default: ["GET /messages"]
                }
            #expect(fixture.requestLines == expected)
            #expect(report.pages == expected.count && report.pulled == 5 && report.pullCompleted)
            #expect(report.errors.isEmpty)
            let stored = try await fixture.storage.fetch(collection: "messages", matching: .all)
            #expect(stored.map(\.id) == ["1", "2", "3", "4", "5"])
            #expect(stored.allSatisfy { $0.syncState == .synced && $0.snapshot?["text"] == $0.object["text"] })
        }
    }

    @Test("Link: several fields, quoted parameters with commas, relative targets, several relation types")
    func linkShapes() async throws {
        try await withSyncFixture { fixture in
            let objects = messageObjects(1...5).map(JSON.object)
            fixture.server.route(.get, "/messages") { request, _ in
                var headers = HTTPFields()
                let page: ArraySlice<JSON>
                switch request.query["cursor"] {
                case nil:
                    page = objects[0..<2]
                    headers.append(
                        HTTPField(name: HTTPField.Name("Link")!, value: "<http://elsewhere.example/x>; rel=\"prev\""))
                    headers.append(
                        HTTPField(
                            name: HTTPField.Name("Link")!, value: "<messages?cursor=b>; title=\"a, b; c\"; rel=\"next\""
                        ))
                case "b":
                    page = objects[2..<4]
                    headers.append(
                        HTTPField(name: HTTPField.Name("Link")!, value: "</messages?cursor=c>; rel=\"last next\""))
                default:
                    page = objects[4..<5]
                    headers.append(HTTPField(name: HTTPField.Name("Link")!, value: "<?cursor=a>; rel=first"))
                }
                return .json(.array(Array(page)), headers: headers)
            }
            let report = try await fixture.repository(SynchronizationConfiguration(pagination: .linkHeader))
                .synchronize().value
            #expect(fixture.requestLines == ["GET /messages", "GET /messages?cursor=b", "GET /messages?cursor=c"])
            #expect(report.pulled == 5 && report.pullCompleted && report.errors.isEmpty)
        }
    }

    @Test("a next link to another origin is refused: the pull stops incomplete and prunes nothing")
    func foreignLink() async throws {
        try await withSyncFixture { fixture in
            try await fixture.storage.upsert(record("7", ["text": "kept"]))
            fixture.server.route(
                .get, "/messages",
                response: .json(
                    .array(messageObjects(1...1).map(JSON.object)),
                    headers: ["Link": "<http://elsewhere.example/messages?page=2>; rel=\"next\""]))
            let report = try await fixture.repository(
                SynchronizationConfiguration(pagination: .linkHeader, prune: true)
            )
            .synchronize().value
            #expect(report.pulled == 1 && !report.pullCompleted && report.pruned == 0)
            #expect(report.errors.map(\.code) == [.invalidRequest])
            #expect(fixture.requestLines == ["GET /messages"])
            #expect(try await fixture.stored("7") != nil)
        }
    }

    @Test("prune off keeps local rows the server lacks; prune on removes only synced ones", arguments: [false, true])
    func prune(_ prune: Bool) async throws {
        try await withSyncFixture(objects: messageObjects(1...2)) { fixture in
            // Given synced 1, 2 (listed) and 8 (not listed), and an unsynced 9 whose push fails
            try await fixture.storage.upsert(["1", "2", "8"].map { record($0, ["text": "old"]) })
            _ = try await fixture.local.create(Message(id: "9", text: "mine")).value
            fixture.server.inject(.status(500), times: 1, pathPrefix: "/messages/collection")

            // When
            let report = try await fixture.repository(
                SynchronizationConfiguration(
                    pagination: .pageQuery(page: "_page", limit: "_limit", size: 1), prune: prune)
            ).synchronize().value

            // Then
            #expect(report.failed == 1 && report.pulled == 2 && report.pullCompleted)
            #expect(report.pruned == (prune ? 1 : 0))
            #expect((try await fixture.stored("8") == nil) == prune)
            #expect(try await fixture.stored("9")?.syncState == .created)
            #expect(try await fixture.stored("1")?.object["text"] == "server 1")
        }
    }

    @Test("a record changed locally during the pull is kept and counted as a conflict")
    func changedDuringPull() async throws {
        try await withSyncFixture { fixture in
            // Given five synced records, and a server that serves page 2 only after 3 was edited locally
            try await fixture.storage.upsert((1...5).map { record(String($0), ["text": "old"]) })
            let objects = messageObjects(1...5).map(JSON.object)
            let local = fixture.local
            fixture.server.route(.get, "/messages") { request, _ in
                let page = Int(request.query["_page"] ?? "1") ?? 1
                if page == 2 {
                    let done = DispatchSemaphore(value: 0)
                    Task {
                        _ = try? await local.update(Message(id: "3", text: "edited")).value
                        done.signal()
                    }
                    done.wait()
                }
                let start = min((page - 1) * 2, objects.count)
                return .json(.array(Array(objects[start..<min(start + 2, objects.count)])))
            }

            // When
            let report = try await fixture.repository(
                SynchronizationConfiguration(pagination: .pageQuery(page: "_page", limit: "_limit", size: 2))
            ).synchronize().value

            // Then
            // Four pages: without X-Total-Count, the short third page is not taken as the end.
            #expect(report.pages == 4 && report.pulled == 4 && report.conflicts == 1)
            let three = try #require(try await fixture.stored("3"))
            #expect(three.syncState == .updated && three.object["text"] == "edited")
            #expect(try await fixture.stored("4")?.object["text"] == "server 4")
        }
    }

    @Test("progress is called after each batch and each page with growing counts")
    func progress() async throws {
        try await withSyncFixture { fixture in
            _ = try await fixture.local.create((1...5).map { Message(id: String($0), text: "t\($0)") }).value
            let calls = LockedValue<[SynchronizationReport]>([])
            let report = try await fixture.repository(
                SynchronizationConfiguration(
                    batchSize: 2, pagination: .pageQuery(page: "_page", limit: "_limit", size: 2))
            ).synchronize { soFar in calls.withLock { $0.append(soFar) } }.value
            let seen = calls.withLock { $0 }
            #expect(seen.map(\.batches) == [1, 2, 3, 3, 3, 3])
            #expect(seen.map(\.pushed) == [2, 4, 5, 5, 5, 5])
            #expect(seen.map(\.pages) == [0, 0, 0, 1, 2, 3])
            #expect(seen.map(\.pulled) == [0, 0, 0, 2, 4, 5])
            #expect(report.pushed == 5 && report.pulled == 5)
        }
    }
}
