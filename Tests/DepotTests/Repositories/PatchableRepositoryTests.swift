import Depot
import DepotTesting
import Foundation
import Testing

/// The model of RFC 7396's appendix example, without its `content` member (which the server keeps).
struct Post: Codable, Identifiable, Sendable, Equatable {
    struct Author: Codable, Sendable, Equatable {
        var givenName: String
        var familyName: String?
    }
    var id: String
    var title: String
    var author: Author
    var tags: [String]
    var phoneNumber: String?
}

struct Posts: PatchableRepository {
    typealias Entity = Post
    let store: Networking
    let path = "posts"
    let snapshots: SnapshotCache
    var configuration: RepositoryConfiguration

    init(
        store: Networking, snapshots: SnapshotCache = SnapshotCache(), configuration: RepositoryConfiguration = .init()
    ) {
        self.store = store
        self.snapshots = snapshots
        self.configuration = configuration
    }
}

/// The repository exactly as issue 9 writes it.
struct PatchableMessages: PatchableRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    let snapshots = SnapshotCache()
}

/// RFC 7396 §3's target document, with an id.
let rfcOriginal: JSONObject = [
    "id": "1", "title": "Goodbye!", "author": ["givenName": "John", "familyName": "Doe"],
    "tags": ["example", "sample"], "content": "This will be unchanged",
]

/// A stub server serving RFC 7396's example as `posts/1`, and a repository over it.
func withPosts(
    configuration: RepositoryConfiguration = .init(),
    snapshots: SnapshotCache = SnapshotCache(),
    _ body: (StubServer, Posts) async throws -> Void
) async throws {
    try await withStubServer { server in
        server.resource("posts", objects: [rfcOriginal])
        try await body(
            server, Posts(store: NetworkingSession(url: server.url), snapshots: snapshots, configuration: configuration)
        )
    }
}

/// One edit of the RFC's post and the merge patch it must send.
struct PatchCase: Sendable, CustomTestStringConvertible {
    let name: String
    let edit: @Sendable (inout Post) -> Void
    let expected: JSON
    var testDescription: String { name }
}

let patchCases: [PatchCase] = [
    PatchCase(
        name: "RFC 7396 §3 example",
        edit: {
            $0.title = "Hello!"
            $0.phoneNumber = "+01-123-456-7890"
            $0.author.familyName = nil
            $0.tags = ["example"]
        },
        expected: [
            "title": "Hello!", "phoneNumber": "+01-123-456-7890", "author": ["familyName": nil], "tags": ["example"],
        ]),
    PatchCase(name: "a changed member", edit: { $0.title = "b" }, expected: ["title": "b"]),
    PatchCase(name: "an added member", edit: { $0.phoneNumber = "1" }, expected: ["phoneNumber": "1"]),
    PatchCase(
        name: "a cleared attribute as null", edit: { $0.author.familyName = nil },
        expected: ["author": ["familyName": nil]]),
    PatchCase(
        name: "a nested member only", edit: { $0.author.givenName = "Jane" },
        expected: ["author": ["givenName": "Jane"]]),
    PatchCase(
        name: "an array replaced whole, not merged", edit: { $0.tags.append("new") },
        expected: ["tags": ["example", "sample", "new"]]),
    PatchCase(name: "an array emptied", edit: { $0.tags = [] }, expected: ["tags": []]),
]

@Suite struct PatchableRepositoryTests {
    @Test("PATCH sends only what changed, as an RFC 7396 merge patch", arguments: patchCases)
    func patchBody(_ patchCase: PatchCase) async throws {
        try await withPosts { server, posts in
            // Given
            var post = try await posts.read("1").value
            patchCase.edit(&post)
            // When
            let patched = try await posts.patch(post).value
            // Then
            let request = try #require(server.requests.last)
            #expect(request.method == "PATCH" && request.path == "/posts/1")
            #expect(request.header("content-type") == "application/merge-patch+json")
            #expect(request.json == patchCase.expected)
            #expect(patched == post)
            #expect(
                server.objects(in: "posts").first == rfcOriginal.applying(patchCase.expected))
        }
    }

    @Test("the RFC 7396 example: the member the model ignores survives, and stays in the snapshot")
    func unmodeledFieldSurvives() async throws {
        try await withPosts { server, posts in
            var post = try await posts.read("1").value
            post.title = "Hello!"
            post.author.familyName = nil
            _ = try await posts.patch(post).value
            let stored = try #require(server.objects(in: "posts").first)
            #expect(stored["content"] == "This will be unchanged")
            #expect(stored["author"] == ["givenName": "John"])
            let snapshot = try #require(posts.snapshots.snapshot(for: "1"))
            #expect(snapshot.json["content"] == "This will be unchanged")
            #expect(snapshot.etag == server.etag(of: "1", in: "posts"))
        }
    }

    @Test("no change, no request: the promise fulfils with the entity")
    func noChangeNoRequest() async throws {
        try await withPosts { server, posts in
            let post = try await posts.read("1").value
            let count = server.requests.count
            let same = try await posts.patch(post).value
            #expect(same == post)
            #expect(server.requests.count == count)
        }
    }

    @Test("with no snapshot, the entity's whole object is the patch")
    func noSnapshotWholeObject() async throws {
        try await withPosts { server, posts in
            let post = Post(id: "1", title: "t", author: .init(givenName: "g"), tags: ["a"])
            _ = try await posts.patch(post).value
            #expect(
                server.requests.last?.json == ["id": "1", "title": "t", "author": ["givenName": "g"], "tags": ["a"]])
            #expect(server.requests.last?.header("if-match") == nil)
            #expect(server.objects(in: "posts").first?["content"] == "This will be unchanged")
        }
    }

    @Test("the issue's example: read, patch an edit, then a raw merge patch")
    func issueExample() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "old", "author": "ann", "tags": ["a"]]])
            let messages = PatchableMessages(store: NetworkingSession(url: server.url))
            let m = try await messages.read("1").value
            var edited = m
            edited.text = "new"
            let patched = try await messages.patch(edited).value
            #expect(patched == edited)
            #expect(server.requests.last?.json == ["text": "new"])
            let etag = try #require(messages.snapshots.snapshot(for: "1")?.etag)
            let raw = try await messages.patch(id: "1", ["tags": .null]).value
            #expect(raw == edited)
            #expect(server.requests.last?.json == ["tags": nil])
            #expect(server.requests.last?.header("if-match") == etag)
            #expect(server.objects(in: "messages") == [["id": "1", "text": "new", "author": "ann"]])
            #expect(messages.snapshots.snapshot(for: "1")?.json == ["id": "1", "text": "new", "author": "ann"])
        }
    }

    @Test("a 204 to PATCH: the snapshot becomes the old one patched; a raw patch with no snapshot reads back")
    func noContentAnswer() async throws {
        try await withStubServer { server in
            // Given: a server that answers PATCH with 204 and an ETag, and changes nothing
            server.resource("messages", objects: [["id": "1", "text": "a", "tags": ["x"]], ["id": "2", "text": "b"]])
            server.route(.patch, "/messages/:id", response: .empty(status: 204, headers: ["ETag": #""after""#]))
            let messages = PatchableMessages(store: NetworkingSession(url: server.url))
            // When
            var one = try await messages.read("1").value
            one.text = "c"
            let patched = try await messages.patch(one).value
            let two = try await messages.patch(id: "2", ["author": "bob"]).value
            // Then
            #expect(patched == one)
            #expect(
                messages.snapshots.snapshot(for: "1")
                    == .init(json: ["id": "1", "text": "c", "tags": ["x"]], etag: #""after""#))
            #expect(two == Message(id: "2", text: "b"), "read back from the server")
            #expect(
                server.requests.suffix(2).map { "\($0.method) \($0.path)" } == ["PATCH /messages/2", "GET /messages/2"])
        }
    }

    @Test("create, read, readAll, update and patch refresh the snapshot; delete forgets it")
    func snapshotLifecycle() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a", "extra": 1]])
            let messages = PatchableMessages(store: NetworkingSession(url: server.url))
            _ = try await messages.readAll().value
            #expect(
                messages.snapshots.snapshot(for: "1") == .init(json: ["id": "1", "text": "a", "extra": 1], etag: nil))
            let created = try await messages.create(Message(id: "2", text: "b")).value
            #expect(messages.snapshots.snapshot(for: "2")?.etag == server.etag(of: "2", in: "messages"))
            _ = try await messages.read("1").value
            #expect(messages.snapshots.snapshot(for: "1")?.etag == server.etag(of: "1", in: "messages"))
            var edited = created
            edited.text = "c"
            _ = try await messages.update(edited).value
            #expect(messages.snapshots.snapshot(for: "2")?.json["text"] == "c")
            #expect(messages.snapshots.snapshot(for: "2")?.etag == server.etag(of: "2", in: "messages"))
            try await messages.delete(edited).value
            #expect(!messages.snapshots.contains("2"))
            #expect(messages.snapshots.ids == ["1"])
            _ = try await NetworkingSession(url: server.url).send(NetworkRequest(method: .delete, path: "messages/1"))
            await #expect { try await messages.delete(id: "1").value } throws: {
                ($0 as? DepotError)?.code == .notFound
            }
            #expect(messages.snapshots.count == 0, "a 404 says the server has none: forgotten too")
        }
    }

    @Test("CRUD calls made through a generic CRUDNetworkingRepository refresh the snapshot too")
    func genericCallersRefresh() async throws {
        func readThrough<R: CRUDNetworkingRepository>(_ repository: R, _ id: R.Entity.ID) async throws -> R.Entity {
            try await repository.read(id).value
        }
        try await withPosts { server, posts in
            _ = try await readThrough(posts, "1")
            #expect(posts.snapshots.snapshot(for: "1")?.etag == server.etag(of: "1", in: "posts"))
        }
    }

    @Test("the cache's capacity holds through the repository: the least recently used goes")
    func capacity() async throws {
        try await withStubServer { server in
            server.resource(
                "posts",
                objects: (1...3).map {
                    ["id": .string("\($0)"), "title": "t", "author": ["givenName": "g"], "tags": []]
                })
            let posts = Posts(store: NetworkingSession(url: server.url), snapshots: SnapshotCache(capacity: 2))
            var all = try await posts.readAll().value
            #expect(posts.snapshots.count == 2)
            #expect(posts.snapshots.ids == ["3", "2"])
            all[0].title = "changed"
            _ = try await posts.patch(all[0]).value
            #expect(
                server.requests.last?.json == [
                    "id": "1", "title": "changed", "author": ["givenName": "g"], "tags": [],
                ], "no snapshot left: the whole object")
            #expect(posts.snapshots.ids == ["1", "3"])
        }
    }
}

extension JSONObject {
    /// This object with the RFC 7396 merge patch applied.
    func applying(_ patch: JSON) -> JSONObject {
        JSON.object(self).applyingMergePatch(patch).objectValue ?? [:]
    }
}
