import Depot
import DepotTesting
import Foundation
import Testing

/// What a session learns about its server (the PATCH format a route reads) stays with that session
/// and that route. Regression: the memory was process-wide, keyed by transport type name and base
/// URL, so a second session to the same URL (a later test on a reused port, a redeployed server),
/// or any transport without a base URL, inherited a format another server had negotiated, and
/// every route of a server shared one format.
@Suite struct RouteMemoryTests {
    /// A transport of the app's own that wraps a session but reports no base URL and no memory.
    struct PlainTransport: Networking {
        let base: NetworkingSession
        func send(_ request: NetworkRequest) async throws -> NetworkResponse { try await base.send(request) }
    }

    enum Transport: String, CaseIterable, Sendable {
        case session, plain

        func make(_ server: StubServer) -> any Networking {
            let session = NetworkingSession(url: server.url)
            return self == .session ? session : PlainTransport(base: session)
        }
    }

    /// Patches post 1 through `posts` with a new title, and returns the PATCH requests' types.
    private func patch(_ posts: Posts, title: String, on server: StubServer) async throws -> [String?] {
        server.clearRequests()
        var post = try await posts.read("1").value
        post.title = title
        _ = try await posts.patch(post).value
        return server.requests.filter { $0.method == "PATCH" }.map { $0.header("content-type") }
    }

    @Test(
        "two sessions against two servers on one host: neither learns the other's PATCH format",
        arguments: Transport.allCases)
    func twoServers(transport: Transport) async throws {
        try await withStubServer { jsonServer in
            try await withStubServer { mergeServer in
                // Given: one server reads only application/json, the other only merge patches.
                jsonServer.resource("posts", objects: [rfcOriginal])
                jsonServer.setPatchFormats([.json], advertising: false, for: "posts")
                mergeServer.resource("posts", objects: [rfcOriginal])
                mergeServer.setPatchFormats([.mergePatch], advertising: false, for: "posts")
                let jsonPosts = Posts(store: transport.make(jsonServer))
                let mergePosts = Posts(store: transport.make(mergeServer))
                // When: the first negotiates application/json after a 415.
                let negotiated = try await patch(jsonPosts, title: "a", on: jsonServer)
                #expect(negotiated == ["application/merge-patch+json", "application/json"])
                // Then: the other still sends a merge patch, once.
                #expect(try await patch(mergePosts, title: "b", on: mergeServer) == ["application/merge-patch+json"])
                #expect(mergeServer.objects(in: "posts").first?["title"] == "b")
            }
        }
    }

    @Test("a second session to the same URL starts afresh: a redeployed server is asked again")
    func sameURL() async throws {
        try await withPosts { server, posts in
            // Given: the first session negotiated application/json, and remembers it.
            server.setPatchFormats([.json], advertising: false, for: "posts")
            _ = try await patch(posts, title: "a", on: server)
            #expect(try await patch(posts, title: "b", on: server) == ["application/json"])
            // When: the server now reads merge patches only, and a new session talks to it.
            server.setPatchFormats([.mergePatch], advertising: false, for: "posts")
            let second = Posts(store: NetworkingSession(url: server.url))
            // Then
            #expect(try await patch(second, title: "c", on: server) == ["application/merge-patch+json"])
            #expect(server.objects(in: "posts").first?["title"] == "c")
        }
    }

    @Test("one session, two routes: a format negotiated on one route is not used on the other")
    func twoRoutes() async throws {
        try await withStubServer { server in
            // Given: posts read application/json only, drafts merge patches only.
            server.resource("posts", objects: [rfcOriginal])
            server.setPatchFormats([.json], advertising: false, for: "posts")
            server.resource("drafts", objects: [rfcOriginal])
            let session = NetworkingSession(url: server.url)
            let posts = Posts(store: session)
            let drafts = Posts(
                store: session,
                configuration: RepositoryConfiguration(routes: [
                    .read: Route(.get, "drafts/:id"), .patch: Route(.patch, "drafts/:id"),
                ]))
            // When
            let negotiated = try await patch(posts, title: "a", on: server)
            #expect(negotiated == ["application/merge-patch+json", "application/json"])
            // Then
            let other = try await patch(drafts, title: "b", on: server)
            #expect(other == ["application/merge-patch+json"])
            let again = try await patch(posts, title: "c", on: server)
            #expect(again == ["application/json"])
        }
    }
}
