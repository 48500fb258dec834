import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first repository behind an ``AuthenticationInterceptor`` whose token must be refreshed
/// while the network is down: the refresh's transport error is a reason to fall back, as any other.
@Suite struct RemoteFirstAuthenticationTests {
    @Test(
        "a remote-first write lost while offline with a token to refresh: stored, queued, and read locally",
        arguments: StoreKind.allCases)
    func offlineWithTokenToRefresh(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: record 1 stored, a token to fetch before the next request, and the network down
            _ = try await fixture.repository().read("1").value
            fixture.server.route(.post, "/token", response: .json(["token": "fresh"]))
            let tokens = NetworkingSession(
                url: fixture.server.url, configuration: SessionConfiguration(retryPolicy: .none))
            let auth = AuthenticationInterceptor(token: nil, failureWindow: .zero) { _ in
                let answer = try await tokens.request(.post, "token").value
                return try #require(answer["token"]?.stringValue)
            }
            // The default 60 s timeout: the refusal must surface as `.transport`, and a loaded machine
            // that descheduled the process past a 5 s deadline turned it into `.timeout`.
            let session = NetworkingSession(
                url: fixture.server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            let messages = OutboxMessages(store: session, storage: fixture.storage)
            try await fixture.server.goOffline()

            // When: the app creates a message, then reads the stored one
            let created = try await messages.create(Message(id: "2", text: "two")).value
            let read = try await messages.read("1").value

            // Then: the create fell back to the store and waits in the outbox; the read answered locally
            #expect(created.origin == .local && created.fallbackError?.code == .transport)
            #expect(try await fixture.stored("2")?.object["text"] == "two")
            #expect(try await fixture.outbox().map(\.entityID) == ["2"])
            #expect(read.origin == .local && read.value.text == "one")
            #expect(read.fallbackError?.code == .transport)

            // And back online, the queued create reaches the server with a fresh token
            try await fixture.server.goOnline()
            fixture.clock.advance(by: .seconds(5))
            let forwarder = fixture.forwarder(messages, requestTimeout: .seconds(60))
            let report = try await forwarder.flush().value
            await forwarder.stop()
            #expect(report.delivered == 1)
            #expect(fixture.serverObject("2")?["text"] == "two")
            #expect(auth.credential == "fresh")
        }
    }

    @Test(
        "cache-first and stale-while-revalidate reads with a token to refresh while offline answer from the store, as remote-first does",
        arguments: [Strategy.cacheFirst, .staleWhileRevalidate])
    func cacheReadsFallBackWhenTheRefreshCannotReachTheServer(strategy: Strategy) async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: record 1 and list stored fresh (max-age), a token to fetch, the network down
            fixture.server.cacheControl = "max-age=60"
            let plain = OutboxMessages(store: fixture.session, storage: fixture.storage, strategy: strategy)
            _ = try await plain.read("1").value
            _ = try await plain.readAll().value
            let tokens = NetworkingSession(
                url: fixture.server.url, configuration: SessionConfiguration(retryPolicy: .none))
            let auth = AuthenticationInterceptor(token: nil, failureWindow: .zero) { _ in
                let answer = try await tokens.request(.post, "token").value
                return try #require(answer["token"]?.stringValue)
            }
            let session = NetworkingSession(
                url: fixture.server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
            let messages = OutboxMessages(store: session, storage: fixture.storage, strategy: strategy)
            try await fixture.server.goOffline()
            // When: the app reads (before: both threw .transport, where remote-first answered)
            let read = try await messages.read("1").value
            let list = try await messages.readAll().value
            // Then: both answered from the store
            #expect(read.origin == .local && read.value.text == "one")
            #expect(list.origin == .local && list.value.map(\.id) == ["1"])
        }
    }
}
