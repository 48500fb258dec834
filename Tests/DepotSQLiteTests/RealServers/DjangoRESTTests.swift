import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Django REST Framework at its defaults, configured as a user would: a trailing slash, the
/// `results` envelope, page-number paging. The PATCH format is left at its default on purpose:
/// Depot negotiates DRF's 415 by itself.
struct DRFNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    var path = "notes/"
    var strategy: Strategy = .remoteFirst
    var pagination: Pagination = .pageQuery(page: "page", limit: "page_size", size: 100)
    var configuration: RepositoryConfiguration {
        RepositoryConfiguration(collectionEnvelope: "results", itemTrailingSlash: true)
    }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: pagination, prune: true)
    }
}

/// The README's ten lines: the presets alone.
struct PresetNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes/"
    var configuration: RepositoryConfiguration { .djangoREST }
    var synchronization: SynchronizationConfiguration { .djangoREST }
}

/// A DRF server and a SQLite store in a temporary directory.
private func withDRF(_ body: (RealServer, DRFNotes) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    try await RealServer.with(.djangoREST) { server in
        let storage = try SQLiteStorage(path: directory.path("drf.sqlite"))
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20)))
        try await body(server, DRFNotes(store: session, storage: storage))
    }
}

@Suite(.enabled(if: RealServer.enabled), .serialized) struct DjangoRESTTests {
    @Test("CRUD and PATCH against DRF's defaults: server ids, trailing slashes, the 415 negotiated")
    func crud() async throws {
        try await withDRF { server, notes in
            let created = try await notes.create(ServerNote(id: 0, title: "first", body: "b")).value
            #expect(created.value.id > 0)
            let id = created.value.id
            #expect(try await notes.read(id).value.value.title == "first")
            var note = created.value
            note.title = "edited"
            _ = try await notes.update(note).value
            note.done = true
            let patched = try await notes.patch(note).value.value
            #expect(patched.done && patched.title == "edited")
            let log = try await server.requests("__requests/")
            let patches = log.filter { $0["method"] == "PATCH" }
            #expect(patches.map { $0["status"] } == [415, 200])
            #expect(patches.last?["content_type"] == "application/json")
            _ = try await notes.delete(id: id).value
            let error = await #expect(throws: DepotError.self) {
                try await NetworkingSession(url: server.url).send(NetworkRequest(method: .get, path: "notes/\(id)/"))
            }
            #expect(error?.code == .notFound)
        }
    }

    @Test(
        "a full pull of 75 notes under page-number paging, asking bigger pages than DRF gives; prune is safe",
        arguments: [10, 25, 100])
    func pull(size: Int) async throws {
        try await withDRF { server, notes in
            try await server.control(.post, "__seed/", ["count": 75])
            // A synced local note the server does not have: pruned only after a complete pull
            try await notes.storage.upsert(
                StoredRecord(
                    collection: "notes/", id: "9999", object: ["id": 9999, "title": "gone"], syncState: .synced)
            )
            var repository = notes
            repository.pagination = .pageQuery(page: "page", limit: "page_size", size: size)
            let report = try await repository.synchronize().value
            #expect(report.errors.isEmpty)
            #expect(report.pulled == 75 && report.pullCompleted && report.pruned == 1)
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(stored.count == 75)
        }
    }

    @Test("offline creates forwarded to DRF: the server's integer ids are adopted locally")
    func offlineForwarded() async throws {
        try await withDRF { server, notes in
            var offline = notes
            offline.strategy = recordOnly
            for index in 1...3 { _ = try await offline.create(ServerNote(id: -index, title: "offline \(index)")).value }
            let report = try await Forwarder(for: offline).flush().value
            #expect(report.delivered == 3 && report.rejected.isEmpty)
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(Set(stored.map(\.id)) == ["1", "2", "3"])
            #expect(stored.allSatisfy { $0.syncState == .synced })
            let posted = try await server.requests("__requests/").filter { $0["method"] == "POST" }
            #expect(posted.count == 3 && posted.allSatisfy { $0["idempotency_key"] != .null })
        }
    }

    @Test("synchronize() with no batch endpoint: DRF's 301 is seen, and every change goes entity by entity")
    func synchronizeWithoutBatch() async throws {
        try await withDRF { server, notes in
            var offline = notes
            offline.strategy = recordOnly
            _ = try await offline.create(ServerNote(id: -1, title: "one")).value
            _ = try await offline.create(ServerNote(id: -2, title: "two")).value
            let report = try await notes.synchronize().value
            #expect(report.errors.isEmpty && report.failed == 0)
            #expect(report.pushed == 2 && report.pulled == 2 && report.pullCompleted)
            #expect(report.notes.contains { $0.contains("entity by entity") })
            let log = try await server.requests("__requests/")
            #expect(log.filter { $0["path"] == "/notes/collection" }.map { $0["status"] } == [301])
            #expect(log.filter { $0["method"] == "POST" && $0["path"] == "/notes/" }.count == 2)
        }
    }

    @Test("a 400 with field errors: kept in the direct error, and in `rejected` for a forwarded write")
    func fieldErrors() async throws {
        try await withDRF { _, notes in
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(ServerNote(id: 0, title: "")).value
            }
            #expect(error?.status == 400)
            let body = try #require(error?.responseBody)
            #expect(try JSON(parsing: body)["title"] == ["This field may not be blank."])
            var offline = notes
            offline.strategy = recordOnly
            _ = try await offline.create(ServerNote(id: -1, title: "")).value
            let report = try await Forwarder(for: offline).flush().value
            let rejected = try #require(report.rejected.first)
            #expect(rejected.rejection?.status == 400)
            #expect(rejected.rejection?.json?["title"] == ["This field may not be blank."])
        }
    }

    @Test("the presets alone: PATCH as JSON at once, no batch route tried, a complete pull")
    func presets() async throws {
        try await withDRF { server, notes in
            let presets = PresetNotes(store: notes.store, storage: notes.storage)
            var note = try await presets.create(ServerNote(id: 0, title: "first")).value.value
            note.done = true
            _ = try await presets.patch(note).value
            try await server.control(.post, "__seed/", ["count": 30])
            _ = try await presets.storage.transaction { tx in
                try tx.upsert(
                    StoredRecord(
                        collection: "notes/", id: "-5", object: ["id": -5, "title": "local"], syncState: .created))
            }
            let report = try await presets.synchronize().value
            #expect(report.errors.isEmpty && report.pushed == 1 && report.pulled == 32 && report.pullCompleted)
            let log = try await server.requests("__requests/")
            #expect(log.filter { $0["method"] == "PATCH" }.map { $0["status"] } == [200])
            #expect(!log.contains { $0["path"] == "/notes/collection" })
        }
    }

    @Test(
        "DRF's three paginations read to the end, asking more than the server gives: requests per style",
        arguments: [
            ("notes/", Pagination.automatic, 3),
            ("notes/", Pagination.nextLink("next"), 3),
            ("limit-notes/", Pagination.offset(offset: "offset", limit: "limit", size: 100), 3),
            ("cursor-notes/", Pagination.nextLink("next"), 3),
            ("cursor-notes/", Pagination.automatic, 3),
            // Page numbers end on DRF's 404 past the last page: one request more.
            ("notes/", Pagination.pageQuery(page: "page", limit: "page_size", size: 100), 4),
        ])
    func paginations(path: String, pagination: Pagination, requests: Int) async throws {
        try await withDRF { server, notes in
            try await server.control(.post, "__seed/", ["count": 75])
            var repository = notes
            repository.path = path
            repository.pagination = pagination
            let report = try await repository.synchronize().value
            #expect(report.errors.isEmpty)
            #expect(report.pulled == 75 && report.pullCompleted)
            let stored = try await notes.storage.fetch(collection: path, matching: Criteria())
            #expect(stored.count == 75)
            let gets = try await server.requests("__requests/").filter { $0["method"] == "GET" }
            #expect(gets.count == requests)
        }
    }

    @Test("an incremental pull against DRF: ISO-8601 cursor from updated_at, soft deletes flagged")
    func incrementalPull() async throws {
        try await withDRF { server, notes in
            try await server.control(.post, "__seed/", ["count": 60])
            let incremental = IncrementalDRFNotes(store: notes.store, storage: notes.storage)
            let first = try await incremental.synchronize().value
            #expect(first.pulled == 60 && first.pullCompleted && !first.incremental)
            // Changes made by another client
            let other = NetworkingSession(url: server.url)
            var patch = NetworkRequest(
                method: .patch, path: "notes/7/", body: try JSON.object(["title": "seven"]).serialized())
            patch.headers[.contentType] = "application/json"
            _ = try await other.send(patch)
            _ = try await other.send(NetworkRequest(method: .delete, path: "notes/8/"))
            let before = try await server.requests("__requests/").count
            let second = try await incremental.synchronize().value
            #expect(second.incremental && second.pullCompleted && second.errors.isEmpty)
            #expect(second.removed == 1)
            #expect(second.pulled >= 1 && second.pulled <= 2)  // note 7, and the boundary note when it ties
            let gets = try await server.requests("__requests/").dropFirst(before).filter { $0["method"] == "GET" }
            #expect(gets.count == 1, "\(gets)")
            #expect(gets.first?["query"]?.stringValue?.contains("updated_after=") == true)
            let stored = try await notes.storage.fetch(collection: "notes/", matching: Criteria())
            #expect(stored.count == 59)
            #expect(stored.first { $0.id == "7" }?.object["title"] == "seven")
        }
    }

    @Test("`var updatedAt: Date` reads and writes DRF's stamps by `coding` alone")
    func updatedAtStamps() async throws {
        try await RealServer.with(.djangoREST) { server in
            var configuration = RepositoryConfiguration.djangoREST
            configuration.coding = datedNoteCoding  // the preset's `.iso8601`, and snake_case keys
            try await expectServerStamps(on: server, path: "notes/", configuration: configuration)
        }
    }
}

/// DRF notes pulled incrementally by `updated_at`, deletions flagged.
struct IncrementalDRFNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = ServerNote
    let store: Networking
    let storage: Storage
    let path = "notes/"
    var configuration: RepositoryConfiguration { .djangoREST }
    var synchronization: SynchronizationConfiguration {
        var configuration = SynchronizationConfiguration.djangoREST
        configuration.incremental = IncrementalPull(
            parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted"))
        return configuration
    }
}
