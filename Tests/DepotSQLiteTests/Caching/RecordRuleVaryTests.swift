import Depot
import DepotTesting
import Foundation
import Testing

/// "Vary done right": a cached answer never goes to another caller.
@Suite struct RecordRuleVaryTests {
    @Test(
        "two sessions told apart by Cookie, Proxy-Authorization or an app-declared header never share a cached answer",
        arguments: [("Cookie", false), ("Proxy-Authorization", false), ("X-Tenant", true)])
    func callersNeverShare(header: String, declared: Bool) async throws {
        try await withHTTPCacheFixture(.sqliteFile) { fixture in
            // Given: answers fresh for 60 s, and two callers told apart by `header` only.
            fixture.server.cacheControl = "max-age=60"
            var configuration = RepositoryConfiguration()
            configuration.cacheClock = fixture.clock
            if declared { configuration.identifyingHeaders = [header] }
            func repository(_ value: String) -> CachingMessages {
                CachingMessages(
                    store: fixture.session(headers: [header: value]), storage: fixture.storage,
                    strategy: .cacheFirst, configuration: configuration)
            }
            let (first, second) = (repository("a"), repository("b"))

            // When: the first reads note 1 and the list, then the second does.
            _ = try await first.read("1").value
            _ = try await first.readAll().value
            let read = try await second.read("1").value
            let list = try await second.readAll().value

            // Then: the second asked the server for both: no answer of the first's reached it.
            #expect(read.origin == .remote && list.origin == .remote)
            #expect(fixture.gets("/messages/1").count == 2 && fixture.gets("/messages").count == 2)
        }
    }

    @Test(
        "a 304 to one account's validator never answers another account's body (Bearer A / Bearer B)",
        arguments: StorageKind.allCases)
    func notModifiedNeverAnswersAnotherAccount(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: a server whose note 1 depends on the caller (ETag per caller, Vary: Authorization).
            @Sendable func caller(_ request: RecordedRequest) -> String {
                request.header("authorization") == "Bearer A" ? "a" : "b"
            }
            fixture.server.route(.get, "/messages/:id") { request, _ in
                let etag = "\"\(caller(request))1\""
                let headers = ["ETag": etag, "Vary": "Authorization"]
                if request.header("if-none-match") == etag { return StubResponse(status: 304, headers: headers) }
                return .json(["id": "1", "text": .string(caller(request) + "'s")], headers: headers)
            }
            fixture.server.route(.get, "/messages") { request, _ in
                .json([["id": "1", "text": .string(caller(request) + "'s")]], headers: ["Vary": "Authorization"])
            }
            let a = fixture.messages(session: fixture.session(headers: ["Authorization": "Bearer A"]))
            let b = fixture.messages(session: fixture.session(headers: ["Authorization": "Bearer B"]))

            // When: A reads note 1, B reads the list (B's version of note 1), A reads note 1 again.
            _ = try await a.read("1").value
            _ = try await b.readAll().value
            let again = try await a.read("1").value

            // Then: A gets A's note, never B's.
            #expect(again.value.text == "a's")
        }
    }

    @Test("a cached answer is keyed by the headers sent: a Cookie the transport adds after preparation")
    func keyedByHeadersSent() async throws {
        try await withHTTPCacheFixture(.sqliteFile) { fixture in
            // Given: note 1 depends on the caller's cookie, fresh for 60 s, and two callers whose
            // transport adds its cookie to each request after the pipeline prepared it.
            fixture.server.route(.get, "/messages/:id") { request, _ in
                let caller = request.header("cookie") == "session=a" ? "a" : "b"
                return .json(
                    ["id": "1", "text": .string(caller + "'s")],
                    headers: ["Cache-Control": "max-age=60", "Vary": "Cookie"])
            }
            var configuration = RepositoryConfiguration()
            configuration.cacheClock = fixture.clock
            func repository(_ cookie: String) -> CachingMessages {
                CachingMessages(
                    store: CookieJarTransport(inner: fixture.session, cookie: cookie), storage: fixture.storage,
                    strategy: .cacheFirst, configuration: configuration)
            }

            // When: the first reads note 1, then the second does.
            _ = try await repository("session=a").read("1").value
            let read = try await repository("session=b").read("1").value

            // Then: the second asked the server and got its own note.
            #expect(read.origin == .remote)
            #expect(read.value.text == "b's")
            #expect(fixture.gets("/messages/1").count == 2)
        }
    }
}

/// A transport that adds a cookie to every request it sends, after the pipeline prepared it (a
/// cookie jar at the transport), as some transports add their own headers.
struct CookieJarTransport: Networking {
    let inner: NetworkingSession
    let cookie: String

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var request = request
        request.headers[.cookie] = cookie
        return try await inner.send(request)
    }

    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest {
        try await inner.prepared(request)
    }
}
