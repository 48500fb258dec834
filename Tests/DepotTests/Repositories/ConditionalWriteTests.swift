import Depot
import DepotTesting
import Foundation
import Testing

/// Changes `posts/1` behind the repository's back, so the ETag it remembers goes stale.
func changeBehindTheBack(_ server: StubServer) async throws {
    let request = try NetworkRequest(
        method: .patch, path: "posts/1", headers: ["Content-Type": "application/merge-patch+json"],
        json: ["title": "theirs"])
    _ = try await NetworkingSession(url: server.url).send(request)
}

@Suite struct ConditionalWriteTests {
    @Test("update, patch and delete send If-Match with the remembered strong ETag")
    func ifMatchSent() async throws {
        try await withPosts { server, posts in
            // Given
            var post = try await posts.read("1").value
            let first = try #require(server.etag(of: "1", in: "posts"))
            // When
            post.title = "patched"
            post = try await posts.patch(post).value
            let second = try #require(server.etag(of: "1", in: "posts"))
            post.title = "updated"
            post = try await posts.update(post).value
            let third = try #require(server.etag(of: "1", in: "posts"))
            try await posts.delete(post).value
            // Then
            let writes = server.requests.suffix(3)
            #expect(writes.map(\.method) == ["PATCH", "PUT", "DELETE"])
            #expect(writes.map { $0.header("if-match") } == [first, second, third])
            #expect(Set([first, second, third]).count == 3, "each answer's ETag was taken")
        }
    }

    @Test(
        "a stale If-Match is refused: .conflict with the server's body, nothing changed",
        arguments: ["PATCH", "PUT", "DELETE"])
    func staleIsConflict(method: String) async throws {
        try await withPosts { server, posts in
            // Given
            var post = try await posts.read("1").value
            try await changeBehindTheBack(server)
            post.title = "mine"
            // When
            let error = await #expect(throws: DepotError.self) {
                switch method {
                case "PATCH": _ = try await posts.patch(post).value
                case "PUT": _ = try await posts.update(post).value
                default: try await posts.delete(post).value
                }
            }
            // Then
            #expect(error?.code == .conflict && error?.status == 412)
            let body = try #require(error?.responseBody)
            #expect(try JSON(parsing: body)["title"] == "theirs")
            #expect(server.objects(in: "posts").first?["title"] == "theirs")
            #expect(posts.snapshots.contains("1"), "a refused delete forgets nothing")
        }
    }

    @Test("a weak ETag is never sent as If-Match")
    func weakNotSent() async throws {
        try await withPosts { server, posts in
            var post = try await posts.read("1").value
            let json = try #require(posts.snapshots.snapshot(for: "1")?.json)
            posts.snapshots.remember(json, etag: #"W/"weak""#, for: "1")
            post.title = "patched"
            post = try await posts.patch(post).value
            #expect(server.requests.last?.method == "PATCH")
            #expect(server.requests.last?.header("if-match") == nil)
        }
    }

    @Test("with conditional writes off, no If-Match goes out and a stale write succeeds")
    func switchOff() async throws {
        try await withPosts(configuration: RepositoryConfiguration(conditionalWrites: false)) { server, posts in
            var post = try await posts.read("1").value
            #expect(posts.snapshots.snapshot(for: "1")?.strongETag != nil)
            try await changeBehindTheBack(server)
            post.tags = ["x"]
            post = try await posts.patch(post).value
            post.title = "mine"
            post = try await posts.update(post).value
            try await posts.delete(post).value
            #expect(server.requests.suffix(3).map(\.method) == ["PATCH", "PUT", "DELETE"])
            #expect(server.requests.allSatisfy { $0.header("if-match") == nil })
            #expect(server.objects(in: "posts").isEmpty)
        }
    }
}
