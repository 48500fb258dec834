import Depot
import DepotTesting
import Foundation
import Testing

/// Messages on a server that takes and answers `{"data": {…}}`.
struct EnvelopedMessages: CRUDNetworkingRepository, PatchableRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    let snapshots = SnapshotCache()
    var patchFormat: PatchFormat = .mergePatch
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(envelope: "data", patchFormat: patchFormat)
        configuration.requestEnvelope = "data"
        return configuration
    }
}

@Suite struct RequestEnvelopeTests {
    /// Answers every write with the object it was sent, in the envelope; 400 for a bare body.
    private func serveEnveloped(_ server: StubServer) {
        for method in [NetworkRequest.Method.post, .put, .patch] {
            server.route(method, "*") { request, _ in
                guard case .object(let object)? = request.json?["data"] else {
                    return .json(["detail": "does not contain primary data"], status: 400)
                }
                var answer = object
                answer["id"] = answer["id"] ?? "m1"
                answer["text"] = answer["text"] ?? "kept"
                return .json(["data": .object(answer)])
            }
        }
        server.route(.get, "/messages/m1", response: .json(["data": ["id": "m1", "text": "kept", "author": nil]]))
    }

    @Test("a request envelope wraps every direct write: entity and dictionary creates, update, PATCH")
    func directWrites() async throws {
        try await withStubServer { server in
            serveEnveloped(server)
            let messages = EnvelopedMessages(store: NetworkingSession(url: server.url))
            let created = try await messages.create(Message(id: "m1", text: "hi", author: nil)).value
            _ = try await messages.create(["text": "from a dictionary"]).value
            var message = try await messages.read("m1").value
            message.text = "edited"
            _ = try await messages.update(message).value
            message.author = "ann"
            _ = try await messages.patch(message).value
            #expect(created.text == "hi")
            let writes = server.requests.filter { $0.method != "GET" }
            #expect(writes.map(\.method) == ["POST", "POST", "PUT", "PATCH"])
            #expect(writes[0].json == ["data": ["id": "m1", "text": "hi", "author": nil]])
            #expect(writes[1].json == ["data": ["text": "from a dictionary"]])
            #expect(writes[2].json == ["data": ["id": "m1", "text": "edited", "author": nil]])
            #expect(writes[3].json == ["data": ["author": "ann"]])
            #expect(writes[3].header("content-type") == "application/merge-patch+json")
        }
    }

    @Test("a request envelope wraps a PATCH sent as .json too, but never a JSON Patch's operations")
    func patchFormats() async throws {
        try await withStubServer { server in
            serveEnveloped(server)
            var messages = EnvelopedMessages(store: NetworkingSession(url: server.url))
            messages.patchFormat = .json
            var message = try await messages.read("m1").value
            message.author = "bob"
            _ = try await messages.patch(message).value
            #expect(server.requests.last?.json == ["data": ["author": "bob"]])
            #expect(server.requests.last?.header("content-type") == "application/json")
            server.route(
                .patch, "/messages/m1", response: .json(["data": ["id": "m1", "text": "kept", "author": "cy"]]))
            messages.patchFormat = .jsonPatch
            message.author = "cy"
            _ = try await messages.patch(message).value
            #expect(server.requests.last?.json == [["op": "add", "path": "/author", "value": "cy"]])
        }
    }
}
