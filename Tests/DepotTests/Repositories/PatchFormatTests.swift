import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct PatchFormatTests {
    @Test(
        "every format reaches the server's object the same way, for every RFC 7396 case",
        arguments: PatchFormat.allCases, patchCases)
    func formatsAgree(format: PatchFormat, patchCase: PatchCase) async throws {
        try await withPosts(configuration: RepositoryConfiguration(patchFormat: format)) { server, posts in
            server.setPatchFormats([format], for: "posts")
            var post = try await posts.read("1").value
            patchCase.edit(&post)
            let patched = try await posts.patch(post).value
            let request = try #require(server.requests.last)
            #expect(request.method == "PATCH" && request.header("content-type") == format.mediaType)
            #expect(patched == post)
            // A partial object sets null where a merge patch removes: compare what the model sees.
            let stored = try #require(server.objects(in: "posts").first)
            let expected = rfcOriginal.applying(patchCase.expected)
            #expect(stored.filter { $0.value != .null } == expected.filter { $0.value != .null })
            #expect(stored["content"] == "This will be unchanged")
        }
    }

    @Test("a JSON Patch changes nested members one by one and removes only members that exist")
    func jsonPatchOperations() {
        let base: JSON = ["a": 1, "nested": ["x": 1, "y": 2], "gone": "z"]
        let patch: JSON = [
            "a": 2, "nested": ["y": nil, "z": 3], "gone": nil, "never": nil, "new": ["k": nil, "v": 1],
        ]
        let operations = PatchFormat.jsonPatch.body(for: patch, base: base)
        #expect(
            operations == [
                ["op": "add", "path": "/a", "value": 2],
                ["op": "remove", "path": "/gone"],
                ["op": "remove", "path": "/nested/y"],
                ["op": "add", "path": "/nested/z", "value": 3],
                ["op": "add", "path": "/new", "value": ["v": 1]],
            ])
        // Keys with "/" and "~" are escaped as RFC 6901 says.
        #expect(
            PatchFormat.jsonPatch.body(for: ["a/b~c": 1], base: nil) == [
                ["op": "add", "path": "/a~1b~0c", "value": 1]
            ])
    }

    @Test("a 415 without Accept-Patch: the merge patch goes again as application/json, and stays so")
    func fallBackToJSON() async throws {
        try await withPosts { server, posts in
            server.setPatchFormats([.json], advertising: false, for: "posts")
            var post = try await posts.read("1").value
            post.title = "first"
            #expect(try await posts.patch(post).value.title == "first")
            let patches = server.requests.filter { $0.method == "PATCH" }
            #expect(patches.map { $0.header("content-type") } == ["application/merge-patch+json", "application/json"])
            // One key for the write: the 415 applied nothing.
            #expect(Set(patches.map { $0.header("idempotency-key") }).count == 1)
            #expect(server.objects(in: "posts").first?["title"] == "first")
            // The choice is remembered for this server: the next patch goes as JSON at once.
            post.title = "second"
            _ = try await posts.patch(post).value
            #expect(server.requests.last?.header("content-type") == "application/json")
            #expect(server.requests.filter { $0.method == "PATCH" }.count == 3)
        }
    }

    @Test("a 415 with Accept-Patch: the first format listed that Depot speaks")
    func acceptPatch() async throws {
        try await withPosts { server, posts in
            server.setPatchFormats([.jsonPatch, .json], for: "posts")
            var post = try await posts.read("1").value
            post.author.familyName = nil
            _ = try await posts.patch(post).value
            #expect(server.requests.last?.header("content-type") == "application/json-patch+json")
            #expect(server.requests.last?.json == [["op": "remove", "path": "/author/familyName"]])
            #expect(server.objects(in: "posts").first?["author"] == ["givenName": "John"])
        }
    }

    @Test("a server that takes no format Depot speaks: the 415 reaches the caller after one renegotiation")
    func noCommonFormat() async throws {
        try await withPosts(configuration: RepositoryConfiguration(patchFormat: .json)) { server, posts in
            server.setPatchFormats([.mergePatch], advertising: false, for: "posts")
            var post = try await posts.read("1").value
            post.title = "x"
            let error = await #expect(throws: DepotError.self) { try await posts.patch(post).value }
            #expect(error?.status == 415)
            #expect(server.requests.filter { $0.method == "PATCH" }.count == 1)
            #expect(server.objects(in: "posts").first?["title"] == "Goodbye!")
        }
    }

    @Test("Accept-Patch parsing: parameters, case, and formats Depot does not speak")
    func negotiation() {
        func error(_ acceptPatch: String?) -> DepotError {
            var error = DepotError(.status, "415")
            error.status = 415
            if let acceptPatch { error.responseHeaders = DepotError.Headers(["Accept-Patch": acceptPatch]) }
            return error
        }
        #expect(PatchFormat.negotiated(after: error(nil), sentAs: .mergePatch) == .json)
        #expect(PatchFormat.negotiated(after: error(nil), sentAs: .json) == nil)
        #expect(
            PatchFormat.negotiated(
                after: error("text/x-diff, Application/JSON-Patch+JSON; charset=utf-8"), sentAs: .mergePatch)
                == .jsonPatch)
        #expect(PatchFormat.negotiated(after: error("application/merge-patch+json"), sentAs: .mergePatch) == nil)
        var notFound = error(nil)
        notFound.status = 404
        #expect(PatchFormat.negotiated(after: notFound, sentAs: .mergePatch) == nil)
    }
}
