import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct StubResourceBatchTests {
    private static let batch: JSON = [
        ["id": "1", "text": "replaced"], ["text": "created without id"], ["id": "c9", "text": "created with id"],
        ["id": "2", "text": "two, replaced"],
    ]

    @Test("POST /name/collection replaces known ids, creates the rest, answers the stored objects in order")
    func batchInOrder() async throws {
        try await withStubServer { server in
            // Given
            server.resource(
                "messages", objects: [["id": "1", "text": "one", "author": "ann"], ["id": "2", "text": "two"]])
            let session = NetworkingSession(url: server.url)
            let before = try #require(server.etag(of: "1", in: "messages"))
            // When
            let response = try await exchange(session, .post, "messages/collection", json: Self.batch)
            // Then
            #expect(response.status == 200)
            let expected: [JSONObject] = [
                ["id": "1", "text": "replaced"], ["id": "3", "text": "created without id"],
                ["id": "c9", "text": "created with id"], ["id": "2", "text": "two, replaced"],
            ]
            #expect(response.json == .array(expected.map(JSON.object)))
            #expect(Set(server.objects(in: "messages")) == Set(expected), "PUT semantics: author is gone")
            #expect(server.objects(in: "messages").count == 4)
            #expect(server.etag(of: "1", in: "messages") != before, "a replaced object gets a new ETag")
        }
    }

    @Test("the shuffled switch answers every stored object, in another order")
    func shuffled() async throws {
        try await withStubServer { server in
            server.resource("messages")
            server.setBatchReply(.shuffled, for: "messages")
            let session = NetworkingSession(url: server.url)
            for size in [2, 3, 10] {
                let sent = (0..<size).map { JSON.object(["id": .string("s\(size)-\($0)"), "text": "t"]) }
                let response = try await exchange(session, .post, "messages/collection", json: .array(sent))
                let answered = try #require(response.json?.arrayValue)
                #expect(answered != sent, "size \(size): not the order sent")
                #expect(Set(answered) == Set(sent) && answered.count == size)
            }
            #expect(server.objects(in: "messages").count == 15)
        }
    }

    @Test("the missingOne switch leaves one object out of the answer, yet stores it")
    func missingOne() async throws {
        try await withStubServer { server in
            server.resource("messages")
            server.setBatchReply([.shuffled, .missingOne], for: "messages")
            let session = NetworkingSession(url: server.url)
            let sent: [JSON] = [["id": "a", "text": "1"], ["id": "b", "text": "2"], ["id": "c", "text": "3"]]
            let response = try await exchange(session, .post, "messages/collection", json: .array(sent))
            let answered = try #require(response.json?.arrayValue)
            #expect(answered.count == 2)
            #expect(Set(answered).isSubset(of: Set(sent)))
            #expect(server.objects(in: "messages").count == 3)
            server.setBatchReply(.exact, for: "messages")
            let again = try await exchange(session, .post, "messages/collection", json: .array(sent))
            #expect(again.json == .array(sent), "switched back")
        }
    }

    @Test(
        "a batch that is not an array of objects answers 400 and stores nothing",
        arguments: [
            #"{"id": "1"}"#, #"[{"id": "1"}, 2]"#, "not json",
        ])
    func notAnArray(body: String) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let session = NetworkingSession(url: server.url)
            let request = NetworkRequest(
                method: .post, path: "messages/collection", headers: ["Content-Type": "application/json"],
                body: Data(body.utf8))
            await #expect { try await session.send(request) } throws: { ($0 as? DepotError)?.status == 400 }
            #expect(server.objects(in: "messages").isEmpty)
        }
    }
}

/// The `Link` header as a map from rel to target.
func links(_ response: NetworkResponse) -> [String: String] {
    var links: [String: String] = [:]
    for part in (response.header("link") ?? "").split(separator: ",") {
        let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">"),
            let rel = pieces.dropFirst().first(where: { $0.hasPrefix("rel=") })
        else { continue }
        links[String(rel.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = String(
            target.dropFirst().dropLast())
    }
    return links
}

@Suite struct StubResourcePagingTests {
    @Test("pages by _page and _limit, following Link rel=next over 3 pages; the last page has no next")
    func threePages() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: (1...7).map { ["id": .string(String($0)), "text": "t"] })
            let session = NetworkingSession(url: server.url)
            // When: the first page, then wherever next points
            var pages: [[String]] = []
            var request = NetworkRequest(
                method: .get, path: "messages",
                query: [URLQueryItem(name: "_page", value: "1"), URLQueryItem(name: "_limit", value: "3")])
            while true {
                let response = try await session.send(request)
                #expect(response.header("x-total-count") == "7")
                let page = try #require(response.json?.arrayValue)
                pages.append(page.compactMap { $0["id"]?.stringValue })
                let link = links(response)
                #expect(link["first"]?.hasSuffix("/messages?_page=1&_limit=3") == true)
                #expect(link["last"]?.hasSuffix("/messages?_page=3&_limit=3") == true)
                guard let next = link["next"] else { break }
                try #require(pages.count < 5, "next never ends")
                let url = try #require(URLComponents(string: next))
                #expect(url.host == "127.0.0.1" && url.port == server.port, "an absolute URL to this server")
                request = NetworkRequest(method: .get, path: url.percentEncodedPath, query: url.queryItems ?? [])
            }
            // Then
            #expect(pages == [["1", "2", "3"], ["4", "5", "6"], ["7"]])
            let pageTwo = try #require(server.requests.dropFirst().first)
            #expect(pageTwo.query == ["_page": "2", "_limit": "3"])
        }
    }

    @Test("filters still apply with paging and are kept in the links; without _page the whole list comes")
    func filtersWithPaging() async throws {
        try await withStubServer { server in
            server.resource(
                "messages", objects: (1...9).map { ["id": .string(String($0)), "author": $0 % 2 == 0 ? "ann" : "bob"] })
            let session = NetworkingSession(url: server.url)
            let query = [
                URLQueryItem(name: "author", value: "bob"), URLQueryItem(name: "_page", value: "2"),
                URLQueryItem(name: "_limit", value: "2"),
            ]
            let response = try await exchange(session, .get, "messages", query: query)
            #expect(response.json?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["5", "7"])
            #expect(response.header("x-total-count") == "5")
            let link = links(response)
            #expect(link["next"]?.hasSuffix("/messages?author=bob&_page=3&_limit=2") == true)
            #expect(link["prev"]?.hasSuffix("/messages?author=bob&_page=1&_limit=2") == true)
            let all = try await exchange(session, .get, "messages", query: [URLQueryItem(name: "author", value: "bob")])
            #expect(all.json?.arrayValue?.count == 5)
            #expect(all.header("link") == nil && all.header("x-total-count") == nil)
        }
    }

    @Test("a page past the end is empty with no next; a bad _page or _limit answers 400")
    func edges() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: (1...4).map { ["id": .string(String($0))] })
            let session = NetworkingSession(url: server.url)
            let past = try await exchange(
                session, .get, "messages",
                query: [URLQueryItem(name: "_page", value: "9"), URLQueryItem(name: "_limit", value: "2")])
            #expect(
                past.json == [] && links(past)["next"] == nil
                    && links(past)["last"]?.hasSuffix("_page=2&_limit=2") == true)
            let exact = try await exchange(
                session, .get, "messages",
                query: [URLQueryItem(name: "_page", value: "2"), URLQueryItem(name: "_limit", value: "2")])
            #expect(exact.json?.arrayValue?.count == 2 && links(exact)["next"] == nil, "a full last page has no next")
            for (page, limit) in [("0", "2"), ("x", "2"), ("1", "-1")] {
                let bad = try await exchange(
                    session, .get, "messages",
                    query: [URLQueryItem(name: "_page", value: page), URLQueryItem(name: "_limit", value: limit)])
                #expect(bad.status == 400, "_page=\(page)&_limit=\(limit)")
            }
        }
    }
}

@Suite struct StubResourceTrailingSlashTests {
    @Test("a resource declared as \"messages/\" serves /messages/ and items with or without the slash")
    func trailingSlash() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages/", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            // When / Then
            let created = try await exchange(session, .post, "messages/", json: ["text": "b"])
            #expect(created.status == 201 && created.json?["id"] == "2")
            #expect(try await exchange(session, .get, "messages/").json?.arrayValue?.count == 2)
            #expect(try await exchange(session, .get, "messages/1/").json?["text"] == "a")
            #expect(try await exchange(session, .get, "messages/1").json?["text"] == "a")
            let patched = try await exchange(
                session, .patch, "messages/2/", headers: mergePatchJSON, json: ["text": "c"])
            #expect(patched.json?["text"] == "c")
            #expect(try await exchange(session, .delete, "messages/1/").status == 204)
            #expect(server.objects(in: "messages/") == [["id": "2", "text": "c"]])
            #expect(
                server.requests.map(\.path) == [
                    "/messages/", "/messages/", "/messages/1/", "/messages/1", "/messages/2/", "/messages/1/",
                ])
        }
    }

    @Test("the collection without its trailing slash is redirected, never served")
    func slashDropped() async throws {
        try await withStubServer { server in
            server.resource("messages/")
            let session = NetworkingSession(url: server.url)
            // URLSession follows a 301 after a POST as a GET, the failure the slash exists to avoid.
            let response = try await exchange(session, .post, "messages", json: ["text": "lost"])
            #expect(response.status == 301 || response.json == [], "redirected, or followed as a GET")
            #expect(server.objects(in: "messages").isEmpty, "POST /messages stores nothing")
            #expect(server.requests.first?.method == "POST" && server.requests.first?.path == "/messages")
        }
    }

    @Test("the redirect names the slashed path and keeps the query")
    func redirectLocation() async throws {
        try await withStubServer { server in
            server.resource("messages/", objects: [["id": "1", "author": "a b"], ["id": "2", "author": "c"]])
            let session = NetworkingSession(url: server.url)
            let response = try await exchange(
                session, .get, "messages", query: [URLQueryItem(name: "author", value: "a b")])
            // URLSession follows the 301 to its Location.
            #expect(response.json == [["id": "1", "author": "a b"]])
            #expect(server.requests.map(\.path) == ["/messages", "/messages/"])
            #expect(server.requests.last?.query == ["author": "a b"])
        }
    }
}
