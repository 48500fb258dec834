import Depot
import DepotTesting
import Foundation
import Testing

/// Sends a raw request and returns the answer, non-2xx ones included (the session throws those).
func exchange(
    _ session: any Networking,
    _ method: NetworkRequest.Method,
    _ path: String,
    query: [URLQueryItem] = [],
    headers: [String: String] = [:],
    json: JSON? = nil
) async throws -> NetworkResponse {
    let request =
        if let json {
            try NetworkRequest(method: method, path: path, query: query, headers: headers, json: json)
        } else {
            NetworkRequest(method: method, path: path, query: query, headers: headers)
        }
    do {
        return try await session.send(request)
    } catch let error as DepotError {
        guard let status = error.status else { throw error }
        return NetworkResponse(
            status: status, headers: HTTPFields(error.responseHeaders), body: error.responseBody ?? Data())
    }
}

extension NetworkResponse {
    var json: JSON? { body.isEmpty ? nil : try? JSON(parsing: body) }
}

let mergePatchJSON = ["Content-Type": "application/merge-patch+json"]

@Suite struct StubResourcePatchTests {
    @Test("PATCH merges an RFC 7396 patch, nested objects included, and never changes the id")
    func nestedMerge() async throws {
        try await withStubServer { server in
            // Given
            server.resource(
                "messages",
                objects: [
                    [
                        "id": "1", "text": "a", "meta": ["pinned": false, "style": ["bold": true, "color": "red"]],
                        "tags": ["x", "y"],
                    ]
                ])
            let session = NetworkingSession(url: server.url)
            // When
            let patch: JSON = [
                "id": "9", "meta": ["pinned": true, "style": ["color": nil, "size": 3]], "tags": ["z"], "new": 1,
            ]
            let response = try await exchange(session, .patch, "messages/1", headers: mergePatchJSON, json: patch)
            // Then
            let expected: JSONObject = [
                "id": "1", "text": "a", "meta": ["pinned": true, "style": ["bold": true, "size": 3]], "tags": ["z"],
                "new": 1,
            ]
            #expect(response.status == 200)
            #expect(response.json == .object(expected))
            #expect(server.objects(in: "messages") == [expected])
        }
    }

    @Test("PATCH accepts the merge-patch media type with parameters, in any case")
    func mediaTypeParameters() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let headers = ["Content-Type": "Application/Merge-Patch+JSON; charset=utf-8"]
            let response = try await exchange(session, .patch, "messages/1", headers: headers, json: ["text": "b"])
            #expect(response.status == 200 && response.json?["text"] == "b")
        }
    }

    @Test(
        "PATCH with another content type answers 415 and changes nothing",
        arguments: [
            "application/json", "text/plain", "application/merge-patch",
        ])
    func unsupportedMediaType(contentType: String) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let headers = ["Content-Type": contentType]
            let response = try await exchange(session, .patch, "messages/1", headers: headers, json: ["text": "b"])
            #expect(response.status == 415)
            #expect(response.header("accept-patch") == "application/merge-patch+json")
            #expect(server.objects(in: "messages") == [["id": "1", "text": "a"]])
        }
    }

    @Test("PATCH with a patch that is not an object, or not JSON, answers 400", arguments: ["[1]", "\"x\"", "{\"a\":"])
    func badPatch(body: String) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let request = NetworkRequest(
                method: .patch, path: "messages/1", headers: mergePatchJSON, body: Data(body.utf8))
            await #expect { try await session.send(request) } throws: { ($0 as? DepotError)?.status == 400 }
            #expect(server.objects(in: "messages") == [["id": "1", "text": "a"]])
        }
    }
}

@Suite struct StubResourceETagTests {
    @Test("every single-object answer has a strong ETag that changes when the object changes, and only then")
    func etagChanges() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let read = try await exchange(session, .get, "messages/1")
            let first = try #require(read.header("etag"))
            #expect(ETag.isStrong(first) && first.hasPrefix("\"") && first.hasSuffix("\""))
            #expect(try await exchange(session, .get, "messages/1").header("etag") == first, "stable while unchanged")
            let patched = try await exchange(
                session, .patch, "messages/1", headers: mergePatchJSON, json: ["text": "b"])
            let second = try #require(patched.header("etag"))
            #expect(second != first)
            #expect(try await exchange(session, .get, "messages/1").header("etag") == second)
            let same = try await exchange(session, .put, "messages/1", json: ["text": "b"])
            #expect(same.header("etag") == second, "a PUT that changes nothing keeps the ETag")
            let put = try await exchange(session, .put, "messages/1", json: ["text": "c"])
            #expect(put.header("etag") != second && put.header("etag") != first)
            #expect(server.etag(of: "1", in: "messages") == put.header("etag"))
            let created = try await exchange(session, .post, "messages", json: ["text": "new"])
            #expect(created.status == 201 && created.header("etag") != nil)
        }
    }

    @Test(
        "a stale If-Match answers 412 with the current object and changes nothing",
        arguments: ["PUT", "PATCH", "DELETE"])
    func staleIfMatch(method: String) async throws {
        try await withStubServer { server in
            // Given: a client read the object, then someone else changed it
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let stale = try #require(try await exchange(session, .get, "messages/1").header("etag"))
            _ = try await exchange(session, .put, "messages/1", json: ["text": "theirs"])
            let current = try #require(server.etag(of: "1", in: "messages"))
            // When
            let headers = [
                "If-Match": stale,
                "Content-Type": method == "PATCH" ? "application/merge-patch+json" : "application/json",
            ]
            let response = try await exchange(
                session, NetworkRequest.Method(rawValue: method), "messages/1", headers: headers, json: ["text": "mine"]
            )
            // Then
            #expect(response.status == 412)
            #expect(response.json == ["id": "1", "text": "theirs"])
            #expect(response.header("etag") == current)
            #expect(server.objects(in: "messages") == [["id": "1", "text": "theirs"]])
        }
    }

    @Test("a fresh If-Match, one of a list, or * lets the write through", arguments: ["PUT", "PATCH", "DELETE"])
    func freshIfMatch(method: String) async throws {
        try await withStubServer { server in
            server.resource(
                "messages", objects: [["id": "1", "text": "a"], ["id": "2", "text": "b"], ["id": "3", "text": "c"]])
            let session = NetworkingSession(url: server.url)
            let contentType = method == "PATCH" ? "application/merge-patch+json" : "application/json"
            let fresh = try #require(try await exchange(session, .get, "messages/1").header("etag"))
            let second = try #require(server.etag(of: "2", in: "messages"))
            let cases: [(id: String, ifMatch: String)] = [("1", fresh), ("2", "\"stale\", \(second)"), ("3", "*")]
            for (id, ifMatch) in cases {
                let headers = ["If-Match": ifMatch, "Content-Type": contentType]
                let response = try await exchange(
                    session, NetworkRequest.Method(rawValue: method), "messages/\(id)", headers: headers,
                    json: ["text": "mine"])
                #expect(response.status == (method == "DELETE" ? 204 : 200), "If-Match: \(ifMatch)")
            }
            let texts = server.objects(in: "messages").compactMap { $0["text"]?.stringValue }
            #expect(texts == (method == "DELETE" ? [] : ["mine", "mine", "mine"]))
        }
    }

    @Test("a stale If-Match reaches the client as .conflict, keeping the server's body (the DocC example)")
    func staleIsConflict() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "hi"]])
            let session = NetworkingSession(url: server.url)
            let stale = try #require(server.etag(of: "1", in: "messages"))
            _ = try await session.send(NetworkRequest(method: .put, path: "messages/1", json: ["text": "theirs"]))
            let mine = try NetworkRequest(
                method: .put, path: "messages/1", headers: ["If-Match": stale], json: ["text": "mine"])
            await #expect { try await session.send(mine) } throws: { error in
                guard let error = error as? DepotError, let body = error.responseBody else { return false }
                return error.code == .conflict && (try? JSON(parsing: body)) == ["id": "1", "text": "theirs"]
            }
        }
    }

    @Test("a weak tag never matches If-Match")
    func weakIfMatch() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let current = try #require(server.etag(of: "1", in: "messages"))
            let response = try await exchange(session, .delete, "messages/1", headers: ["If-Match": "W/" + current])
            #expect(response.status == 412)
            #expect(server.objects(in: "messages").count == 1)
        }
    }
}

@Suite struct StubHandlerLockTests {
    @Test("a route handler may read the server's own record: it runs outside the server's lock")
    func handlerReadsRequests() async throws {
        try await withStubServer { server in
            // Given: a handler that asks the server how many requests it has seen
            server.route(.get, "/count") { _, _ in .json(["seen": .integer(Int64(server.requests.count))]) }
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(5)))
            // When
            let first = try await session.request(.get, "count").value
            let second = try await session.request(.get, "count").value
            // Then: no deadlock, and each answer saw the requests so far
            #expect(first["seen"] == 1 && second["seen"] == 2)
        }
    }
}
