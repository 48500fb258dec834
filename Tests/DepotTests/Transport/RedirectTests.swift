import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct RedirectTests {
    /// A server whose `/old` answers `status` with `Location: /new`, and whose `/new` echoes the
    /// method, body and Authorization it got.
    private func withRedirect(
        _ status: Int, location: String = "/new", _ body: (StubServer) async throws -> Void
    ) async throws {
        try await withStubServer { server in
            server.route(nil, "old", response: .empty(status: status, headers: ["Location": location]))
            server.route(nil, "new") { request, _ in
                .json(
                    [
                        "method": .string(request.method),
                        "body": .string(String(decoding: request.body, as: UTF8.self)),
                        "authorization": request.header("authorization").map(JSON.string) ?? .null,
                    ])
            }
            try await body(server)
        }
    }

    @Test(
        "a POST, PUT, PATCH or DELETE answered 301, 302 or 303 is never turned into a GET: a typed error naming the Location",
        arguments: Transport.available, [301, 302, 303])
    func unsafeNotFollowed(transport: Transport, status: Int) async throws {
        try await withRedirect(status) { server in
            let session = transport.session(url: server.url)
            for method in [NetworkRequest.Method.post, .put, .patch, .delete] {
                let error = await #expect(throws: DepotError.self) {
                    try await session.send(NetworkRequest(method: method, path: "old", body: Data("{}".utf8)))
                }
                #expect(error?.code == .status && error?.status == status)
                #expect(error?.message.contains("redirecting to /new") == true)
                #expect(error?.message.contains("trailing slash") == true)
            }
            #expect(server.requests.allSatisfy { $0.path == "/old" })
        }
    }

    @Test(
        "a 307 or 308 to the same origin is followed with the method and body", arguments: Transport.available,
        [307, 308])
    func sameOriginFollowed(transport: Transport, status: Int) async throws {
        try await withRedirect(status) { server in
            let session = transport.session(url: server.url)
            let response = try await session.send(
                NetworkRequest(
                    method: .post, path: "old", headers: ["Authorization": "Bearer t"], body: Data("{\"a\":1}".utf8)))
            let echoed = try JSON(parsing: response.body)
            #expect(echoed["method"] == "POST" && echoed["body"] == "{\"a\":1}")
            #expect(echoed["authorization"] == "Bearer t")
            #expect(server.requests.map(\.path) == ["/old", "/new"])
        }
    }

    @Test("a 307 of a POST to another origin is not followed", arguments: Transport.available)
    func crossOriginNotFollowed(transport: Transport) async throws {
        try await withStubServer { other in
            try await withRedirect(307, location: other.url.absoluteString + "/new") { server in
                let session = transport.session(url: server.url)
                let error = await #expect(throws: DepotError.self) {
                    try await session.send(NetworkRequest(method: .post, path: "old", body: Data("{}".utf8)))
                }
                #expect(error?.status == 307)
                #expect(other.requests.isEmpty)
            }
        }
    }

    @Test("a GET follows a 301 to another origin without its credentials", arguments: Transport.available)
    func getFollowsWithoutCredentials(transport: Transport) async throws {
        try await withStubServer { other in
            other.route(.get, "new") { request, _ in
                .json(["authorization": request.header("authorization").map(JSON.string) ?? .null])
            }
            try await withRedirect(301, location: other.url.absoluteString + "/new") { server in
                let session = transport.session(url: server.url)
                let response = try await session.send(
                    NetworkRequest(method: .get, path: "old", headers: ["Authorization": "Bearer secret"]))
                #expect(try JSON(parsing: response.body)["authorization"] == .null)
                #expect(other.requests.count == 1)
            }
        }
    }

    /// Adds the header an interceptor sets for every request (an API key, a tenant).
    private struct KeyInterceptor: RequestInterceptor {
        func adapt(_ request: NetworkRequest) async throws -> NetworkRequest {
            var request = request
            request.headers[HTTPField.Name("X-Interceptor-Key")!] = "from-interceptor"
            return request
        }
    }

    @Test(
        "a GET redirected to another origin carries no header that identifies the caller, whoever set it",
        arguments: Transport.available)
    func crossOriginDropsIdentifyingHeaders(transport: Transport) async throws {
        try await withStubServer { other in
            other.route(.get, "new", response: .json(["ok": true]))
            try await withRedirect(302, location: other.url.absoluteString + "/new") { server in
                // Given an API key from each source: the request (a header the app declared in
                // identifyingHeaders), the session's headers, and an interceptor
                var configuration = SessionConfiguration()
                configuration.interceptors = [KeyInterceptor()]
                let session = transport.session(
                    url: server.url, headers: ["X-Session-Key": "from-session"], configuration: configuration)
                _ = try await session.send(
                    NetworkRequest(
                        method: .get, path: "old",
                        headers: ["X-API-Key": "secret", "Accept": "application/json", "Cookie": "sid=1"]))
                // Then the first origin got them all, the other origin none of them
                let first = try #require(server.requests.first)
                #expect(first.header("x-api-key") == "secret" && first.header("x-session-key") == "from-session")
                #expect(first.header("x-interceptor-key") == "from-interceptor")
                let followed = try #require(other.requests.first)
                for name in ["x-api-key", "x-session-key", "x-interceptor-key", "cookie", "authorization"] {
                    #expect(followed.header(name) == nil, "\(name) went to another origin")
                }
                #expect(followed.header("accept") == "application/json")
            }
        }
    }

    @Test("a redirect loop is a typed error listing the chain", arguments: Transport.available)
    func loop(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "a", response: .empty(status: 302, headers: ["Location": "/b"]))
            server.route(.get, "b", response: .empty(status: 302, headers: ["Location": "/a"]))
            let session = transport.session(url: server.url)
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "a"))
            }
            #expect(error?.code == .status && error?.status == 302)
            #expect(error?.message.contains("redirect loop") == true)
            #expect(
                error?.message.contains("/a → \(server.url.absoluteString)/b → \(server.url.absoluteString)/a") == true)
            #expect(server.requests.count == 2)
        }
    }

    @Test("a collection path without its trailing slash: the POST's error says so", arguments: Transport.available)
    func trailingSlashHint(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages/")
            let messages = MessageRepository(store: transport.session(url: server.url))
            let error = await #expect(throws: DepotError.self) {
                try await messages.create(Message(id: "1", text: "a")).value
            }
            #expect(error?.status == 301)
            #expect(error?.message.contains("/messages/") == true)
            #expect(server.objects(in: "messages").isEmpty)
        }
    }
}
