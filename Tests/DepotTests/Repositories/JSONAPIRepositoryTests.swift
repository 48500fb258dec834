import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct JSONAPIRepositoryTests {
    @Test("JSON:API: a plain Codable model's create, read, update, patch and delete speak documents")
    func crud() async throws {
        try await withStubServer { server in
            // Given
            serveJSONAPINotes(on: server)
            let notes = APINotes(store: NetworkingSession(url: server.url))
            // When
            let created = try await notes.create(APINote(id: 0, title: "first")).value
            let read = try await notes.read(created.id).value
            var note = read
            note.title = "edited"
            let updated = try await notes.update(note).value
            let dictionary = try await notes.create(["title": "second"]).value
            try await notes.delete(id: dictionary.id).value
            // Then
            #expect(created == APINote(id: 1, title: "first") && read == created)
            #expect(updated.title == "edited" && dictionary.id == 2)
            let requests = server.requests
            #expect(requests.map(\.method) == ["POST", "GET", "PATCH", "POST", "DELETE"])
            #expect(requests[0].json == ["data": ["type": "notes", "attributes": ["title": "first", "done": false]]])
            #expect(
                requests[2].json == [
                    "data": ["type": "notes", "id": "1", "attributes": ["title": "edited", "done": false]]
                ]
            )
            #expect(requests[3].json == ["data": ["type": "notes", "attributes": ["title": "second"]]])
            for request in requests {
                #expect(request.header("accept") == JSONAPIResource.mediaType)
                if !request.body.isEmpty { #expect(request.header("content-type") == JSONAPIResource.mediaType) }
            }
        }
    }

    @Test("JSON:API PATCH goes as application/vnd.api+json, not as the patch format's media type")
    func patchMediaType() async throws {
        try await withStubServer { server in
            serveJSONAPINotes(on: server, objects: [4: ["title": "four", "done": false]])
            let session = NetworkingSession(url: server.url)
            let notes = PatchableAPINotes(store: session)
            var note = try await notes.read(4).value
            note.done = true
            let patched = try await notes.patch(note).value
            #expect(patched == APINote(id: 4, title: "four", done: true))
            let patch = try #require(server.requests.last)
            #expect(patch.method == "PATCH" && patch.header("content-type") == JSONAPIResource.mediaType)
            #expect(patch.json == ["data": ["type": "notes", "id": "4", "attributes": ["done": true]]])
        }
    }

    @Test("a PATCH keeps the repository's own Content-Type instead of the format's")
    func patchKeepsConfiguredContentType() async throws {
        try await withStubServer { server in
            server.resource("counters", idStyle: .integer, objects: [["id": 1, "count": 1]])
            server.route(.patch, "/counters/1") { request, _ in
                .json(["id": 1, "count": request.json?["count"] ?? .null])
            }
            let notes = VendorCounters(store: NetworkingSession(url: server.url))
            let counter = try await notes.read(1).value
            _ = try await notes.patch(Counter(id: counter.id, count: 2)).value
            #expect(server.requests.last?.header("content-type") == "application/vnd.acme+json")
        }
    }

    @Test("JSON:API lists: each resource read as a plain object, relationships kept as they came")
    func list() async throws {
        try await withStubServer { server in
            let author: JSON = ["author": ["data": ["type": "people", "id": "9"]]]
            server.route(
                .get, "/tasks",
                response: .json([
                    "data": [
                        ["type": "tasks", "id": "1", "attributes": ["title": "a"], "relationships": author],
                        ["type": "tasks", "id": "2", "attributes": ["title": "b"]],
                    ],
                    "links": ["next": nil],
                ]))
            let repository = Tasks(store: NetworkingSession(url: server.url))
            let tasks = try await repository.readAll().value
            #expect(tasks.map(\.id) == ["1", "2"])
            #expect(tasks.first?.relationships == author && tasks.last?.relationships == nil)
            // Written back as the resource's relationships, never as an attribute
            server.route(.patch, "/tasks/1") { request, _ in .json(["data": request.json?["data"] ?? nil]) }
            var task = try #require(tasks.first)
            task.title = "a, edited"
            _ = try await repository.update(task).value
            #expect(
                server.requests.last?.json == [
                    "data": ["type": "tasks", "id": "1", "attributes": ["title": "a, edited"], "relationships": author]
                ])
        }
    }

    @Test("JSON:API with client-generated ids: a create's document carries the entity's id")
    func clientGeneratedIDs() async throws {
        try await withStubServer { server in
            server.route(.post, "/tasks") { request, _ in .json(["data": request.json?["data"] ?? nil], status: 201) }
            var repository = Tasks(store: NetworkingSession(url: server.url))
            repository.clientGeneratedIDs = true
            let created = try await repository.create(APITask(id: "t-1", title: "mine")).value
            #expect(created == APITask(id: "t-1", title: "mine"))
            #expect(
                server.requests.last?.json == ["data": ["type": "tasks", "id": "t-1", "attributes": ["title": "mine"]]])
        }
    }

    @Test("a JSON:API validation error: errors[] read as field errors, the body kept")
    func validationError() async throws {
        try await withStubServer { server in
            serveJSONAPINotes(on: server)
            let notes = APINotes(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) {
                try await notes.create(APINote(id: 0, title: "")).value
            }
            #expect(error?.status == 400)
            #expect(error?.fieldErrors == [FieldError(field: "title", message: "This field may not be blank.")])
            let body = try #require(error?.responseBody)
            #expect(try JSON(parsing: body)["errors"]?.arrayValue?.count == 1)
        }
    }
}

/// The JSON:API notes with a snapshot cache, so `patch` sends only the change.
struct PatchableAPINotes: CRUDNetworkingRepository, PatchableRepository {
    typealias Entity = APINote
    let store: Networking
    let path = "notes"
    let snapshots = SnapshotCache()
    var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
}

/// Counters sent with a vendor media type the repository names itself.
struct VendorCounters: CRUDNetworkingRepository, PatchableRepository {
    typealias Entity = Counter
    let store: Networking
    let path = "counters"
    let snapshots = SnapshotCache()
    var configuration: RepositoryConfiguration {
        RepositoryConfiguration(headers: ["Content-Type": "application/vnd.acme+json"])
    }
}

/// A task whose relationships the model keeps as they came.
struct APITask: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var title: String
    var relationships: JSON?
}

struct Tasks: CRUDNetworkingRepository {
    typealias Entity = APITask
    let store: Networking
    let path = "tasks"
    var clientGeneratedIDs = false
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration.jsonAPI(type: "tasks", clientGeneratedIDs: clientGeneratedIDs)
        configuration.nilEncoding = .omit
        return configuration
    }
}
