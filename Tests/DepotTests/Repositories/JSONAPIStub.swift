import Depot
import DepotTesting
import Foundation

/// A note with an integer id the server assigns: a plain `Codable` model.
struct APINote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var done: Bool = false
}

/// Notes on a JSON:API server, through the preset alone.
struct APINotes: CRUDNetworkingRepository {
    typealias Entity = APINote
    let store: Networking
    let path = "notes"
    var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
}

/// A JSON:API collection of `notes` on `server`, strict like a real one: a body that is not a
/// document of type `notes` (or not `application/vnd.api+json`) is refused, a PATCH whose `id`
/// is not the URL's is a 409, and ids are strings assigned by the server.
func serveJSONAPINotes(on server: StubServer, objects: [Int: JSONObject] = [:]) {
    let notes = LockedValue(objects)
    let next = LockedValue((objects.keys.max() ?? 0) + 1)
    @Sendable func resource(_ id: Int, _ attributes: JSONObject) -> JSON {
        ["type": "notes", "id": .string(String(id)), "attributes": .object(attributes)]
    }
    @Sendable func document(_ data: JSON, status: Int = 200) -> StubResponse {
        StubResponse(
            status: status, headers: ["Content-Type": JSONAPIResource.mediaType],
            body: (try? data.serialized()) ?? Data())
    }
    @Sendable func refusal(_ status: Int, _ detail: String) -> StubResponse {
        document(["errors": [["status": .string(String(status)), "detail": .string(detail)]]], status: status)
    }
    /// The request's resource object, or why it is refused.
    @Sendable func resourceObject(_ request: RecordedRequest) -> Result<JSONObject, StubFailure> {
        guard request.header("content-type") == JSONAPIResource.mediaType else {
            return .failure(StubFailure(response: refusal(415, "Unsupported media type")))
        }
        guard let data = request.json?["data"]?.objectValue else {
            return .failure(StubFailure(response: refusal(400, "Received document does not contain primary data")))
        }
        guard data["type"] == "notes" else {
            return .failure(StubFailure(response: refusal(409, "The resource object's type is not notes")))
        }
        return .success(data)
    }
    server.route(.post, "/notes") { request, _ in
        switch resourceObject(request) {
        case .failure(let failure): return failure.response
        case .success(let data):
            guard data["id"] == nil else { return refusal(403, "Client-generated ids are not supported") }
            var attributes = data["attributes"]?.objectValue ?? [:]
            attributes["done"] = attributes["done"] ?? false
            guard let title = attributes["title"]?.stringValue, !title.isEmpty else {
                return document(
                    [
                        "errors": [
                            [
                                "detail": "This field may not be blank.", "status": "400",
                                "source": ["pointer": "/data/attributes/title"],
                            ]
                        ]
                    ], status: 400)
            }
            let id = next.withLock { id in
                defer { id += 1 }
                return id
            }
            notes.withLock { $0[id] = attributes }
            return document(["data": resource(id, attributes)], status: 201)
        }
    }
    server.route(.get, "/notes") { _, _ in
        let all = notes.withLock { $0 }
        return document([
            "data": .array(all.keys.sorted().map { resource($0, all[$0] ?? [:]) }), "links": ["next": nil],
        ])
    }
    server.route(.get, "/notes/:id") { _, parameters in
        guard let id = parameters["id"].flatMap(Int.init), let note = notes.withLock({ $0[id] }) else {
            return refusal(404, "Not found.")
        }
        return document(["data": resource(id, note)])
    }
    server.route(.patch, "/notes/:id") { request, parameters in
        guard let id = parameters["id"].flatMap(Int.init), notes.withLock({ $0[id] }) != nil else {
            return refusal(404, "Not found.")
        }
        switch resourceObject(request) {
        case .failure(let failure): return failure.response
        case .success(let data):
            guard data["id"] == .string(String(id)) else { return refusal(409, "The resource object's id is wrong") }
            let changes = data["attributes"]?.objectValue ?? [:]
            let note = notes.withLock { notes in
                notes[id, default: [:]].merge(changes) { _, new in new }
                return notes[id] ?? [:]
            }
            return document(["data": resource(id, note)])
        }
    }
    server.route(.delete, "/notes/:id") { _, parameters in
        guard let id = parameters["id"].flatMap(Int.init), notes.withLock({ $0.removeValue(forKey: id) }) != nil else {
            return refusal(404, "Not found.")
        }
        return StubResponse(status: 204)
    }
}

/// A refusal, as a `Result`'s failure.
struct StubFailure: Error {
    var response: StubResponse
}
