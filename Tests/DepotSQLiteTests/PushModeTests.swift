import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct PushModeTests {
    /// Local changes: two creates, an update of server object 1, a delete of server object 2.
    private func makeChanges(_ fixture: SyncFixture) async throws {
        _ = try await fixture.local.create([Message(id: "a", text: "new a"), Message(id: "b", text: "new b")]).value
        _ = try await fixture.local.update(Message(id: "1", text: "one, edited")).value
        _ = try await fixture.local.delete(id: "2").value
    }

    /// The server as the changes leave it.
    private func expectApplied(_ fixture: SyncFixture) {
        let texts = Dictionary(
            uniqueKeysWithValues: fixture.server.objects(in: "messages").compactMap { object -> (String, String)? in
                guard case .string(let id)? = object["id"], case .string(let text)? = object["text"] else { return nil }
                return (id, text)
            })
        #expect(texts == ["1": "one, edited", "3": "server 3", "a": "new a", "b": "new b"])
    }

    @Test(
        "automatic: a server with no batch endpoint (404, 405, 501, a redirect) gets every change entity by entity",
        arguments: [404, 405, 501, 301])
    func automaticFallsBack(status: Int) async throws {
        try await withSyncFixture(objects: messageObjects(1...3)) { fixture in
            let answer: StubResponse =
                status == 301
                ? .empty(status: 301, headers: ["Location": "/messages/collection/"])
                : .json(["detail": "Not found."], status: status)
            fixture.server.route(.post, "messages/collection", response: answer)
            let repository = fixture.repository(SynchronizationConfiguration())
            _ = try await repository.readAll().value
            try await makeChanges(fixture)
            // When
            let report = try await repository.synchronize().value
            // Then
            #expect(report.errors.isEmpty && report.failed == 0)
            #expect(report.pushed == 3 && report.deleted == 1)
            #expect(report.notes.count == 1 && report.notes[0].contains("entity by entity"))
            expectApplied(fixture)
            #expect(fixture.server.appliedWrites.count == 4)
            #expect(try await fixture.storage.outboxCount(OutboxQuery(selection: .all)) == 0)
            #expect(try await fixture.stored("a")?.syncState == .synced)
            // The batch route is not tried again for this server
            _ = try await fixture.local.create(Message(id: "c", text: "new c")).value
            let again = try await repository.synchronize().value
            #expect(again.pushed == 1 && again.notes.isEmpty)
            #expect(fixture.server.requests.filter { $0.path == "/messages/collection" }.count == 1)
        }
    }

    @Test("each: every write under its own key, several entities at once", arguments: [1, 4])
    func each(concurrency: Int) async throws {
        try await withSyncFixture(objects: messageObjects(1...3)) { fixture in
            let repository = fixture.repository(
                SynchronizationConfiguration(pushMode: .each, maximumConcurrency: concurrency))
            _ = try await repository.readAll().value
            try await makeChanges(fixture)
            let keys = try await fixture.storage.outbox(OutboxQuery(selection: .all)).map(\.idempotencyKey)
            let report = try await repository.synchronize().value
            #expect(report.errors.isEmpty && report.pushed == 3 && report.deleted == 1)
            expectApplied(fixture)
            #expect(fixture.server.requests.allSatisfy { $0.path != "/messages/collection" })
            // adoptUnsynced made the entries; each went once, under its key
            let applied = fixture.server.appliedWrites.map(\.idempotencyKey)
            #expect(applied.count == 4 && Set(applied).count == 4)
            if !keys.isEmpty { #expect(Set(applied) == Set(keys)) }
        }
    }

    @Test("each: a refused write is reported and stays unsynced, the others go")
    func eachRefused() async throws {
        try await withSyncFixture(objects: messageObjects(1...3)) { fixture in
            fixture.server.route(.put, "messages/1", response: .json(["text": ["too long"]], status: 400))
            let repository = fixture.repository(SynchronizationConfiguration(pushMode: .each, maximumConcurrency: 2))
            _ = try await repository.readAll().value
            try await makeChanges(fixture)
            let report = try await repository.synchronize().value
            #expect(report.pushed == 2 && report.deleted == 1 && report.failed == 1)
            #expect(report.errors.count == 1 && report.errors.first?.status == 400)
            #expect(try await fixture.stored("1")?.syncState == .updated)
        }
    }

    @Test(
        "bulkCollection: new entities in one array to the collection, matched by position when the server assigns ids")
    func bulkCollection() async throws {
        try await withSyncFixture(objects: messageObjects(1...3)) { fixture in
            // A server that assigns its own ids, as Django REST Framework does
            fixture.server.route(.post, "messages") { request, _ in
                guard case .array(let elements)? = request.json else { return .json(["error": "array"], status: 400) }
                let created: [JSON] = elements.enumerated().map { index, element in
                    var object = element.objectValue ?? [:]
                    object["id"] = .string("server-\(index + 1)")
                    return .object(object)
                }
                return .json(.array(created), status: 201)
            }
            let repository = fixture.repository(SynchronizationConfiguration(pushMode: .bulkCollection))
            _ = try await repository.readAll().value
            try await makeChanges(fixture)
            let report = try await repository.synchronize().value
            #expect(report.errors.isEmpty && report.pushed == 3 && report.deleted == 1)
            let posts = fixture.server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 1 && posts.first?.json?.arrayValue?.count == 2)
            #expect(fixture.server.requests.contains { $0.method == "PUT" && $0.path == "/messages/1" })
            // The server's ids were adopted
            #expect(try await fixture.stored("a") == nil)
            #expect(try await fixture.stored("server-1")?.object["text"] == "new a")
            #expect(try await fixture.stored("server-2")?.object["text"] == "new b")
            #expect(try await fixture.storage.outboxCount(OutboxQuery(selection: .all)) == 0)
        }
    }
}
