import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Whose write is it: an outbox entry records the account it was made under, and is never sent
/// under another account's credential. After a switch it is held (reported, listable,
/// discardable) until its account signs in again.
@Suite struct AccountSwitchTests {
    /// A session signed in as account A (token `A`) through an `AuthenticationInterceptor`, and a
    /// repository that records writes for the forwarder on the fixture's store.
    static func signedInAsA(
        _ fixture: OutboxFixture,
        refresh: @escaping AuthenticationInterceptor<String>.Refresh = { expired in expired ?? "none" }
    ) -> (AuthenticationInterceptor<String>, OutboxMessages) {
        let auth = AuthenticationInterceptor(token: "A", account: "A", refresh: refresh)
        let session = NetworkingSession(
            url: fixture.server.url, configuration: SessionConfiguration(interceptors: [auth], retryPolicy: .none))
        return (auth, OutboxMessages(store: session, storage: fixture.storage, strategy: recordOnly))
    }

    /// The `Authorization` of every `method` request the server received for `/messages/<id>`.
    static func authorizations(_ server: StubServer, _ method: String, _ id: String) -> [String?] {
        server.requests.filter { $0.method == method && $0.path == "/messages/\(id)" }.map {
            $0.header("authorization")
        }
    }

    @Test(
        "a write waiting on A's token refresh when B signs in is never sent as B: held, then sent once as A",
        arguments: StoreKind.allCases)
    func writeWaitingOnRefreshIsHeldForItsAccount(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: A signed in; A's edit recorded, and its send answered 401 with A's refresh held
            let (started, refreshStarted) = AsyncStream.makeStream(of: Void.self)
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            let (auth, messages) = Self.signedInAsA(fixture) { _ in
                refreshStarted.yield()
                for await _ in released {}  // held until the test lets it end
                return "A2"
            }
            _ = try await messages.update(Message(id: "1", text: "ann's edit")).value
            #expect(try await fixture.outbox().map(\.account) == ["A"])
            let forwarder = fixture.forwarder(messages)
            fixture.server.inject(.status(401), times: 1, pathPrefix: "/messages")
            let flushing = Task { try await forwarder.flush().value }
            for await _ in started { break }

            // When: the app signs in as B while the write waits for A's refresh
            auth.update(credential: "B", account: "B")
            release.finish()
            let first = try await flushing.value

            // Then: the write was not sent as B; it is held, and still A's
            #expect(first.delivered == 0 && first.held.map(\.entityID) == ["1"])
            #expect(fixture.applied("1").isEmpty)
            #expect(Self.authorizations(fixture.server, "PUT", "1") == ["Bearer A"])  // the 401'd send
            #expect(try await forwarder.held().value.map(\.account) == ["A"])

            // And: flushes as B hold it again, sending nothing
            fixture.server.clearRequests()
            let second = try await forwarder.flush().value
            #expect(second.held.count == 1 && second.delivered == 0)
            #expect(fixture.server.requests.isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "one")

            // When: A signs in again
            auth.update(credential: "A3", account: "A")
            let third = try await forwarder.flush().value

            // Then: it goes once, with A's credential
            #expect(third.delivered == 1 && third.held.isEmpty)
            #expect(fixture.applied("1").count == 1)
            #expect(Self.authorizations(fixture.server, "PUT", "1") == ["Bearer A3"])
            #expect(fixture.serverObject("1")?["text"] == "ann's edit")
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await forwarder.held().value.isEmpty)
        }
    }

    @Test("discard(account:) gives up the held writes of an account that will not be back")
    func discardAccount() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: A's edit recorded, then B signs in
            let (auth, messages) = Self.signedInAsA(fixture)
            _ = try await fixture.repository().read("1").value  // the server's copy, stored
            _ = try await messages.update(Message(id: "1", text: "ann's edit")).value
            auth.update(credential: "B", account: "B")
            let forwarder = fixture.forwarder(messages)
            var events = forwarder.events.makeAsyncIterator()
            let flushed = try await forwarder.flush().value
            #expect(flushed.held.map(\.entityID) == ["1"])
            let event = await next(&events) { if case .held = $0 { true } else { false } }
            #expect(event?.entry.account == "A")

            // When: the app gives A's writes up
            let removed = try await forwarder.discard(account: "A").value

            // Then: the entry is gone, the record is the server's again, and nothing was sent
            #expect(removed == 1)
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await forwarder.held().value.isEmpty)
            let record = try #require(try await fixture.stored("1"))
            #expect(record.syncState == .synced && record.object["text"] == "one")
            #expect(fixture.applied("1").isEmpty)
            #expect(Self.authorizations(fixture.server, "PUT", "1").isEmpty)
        }
    }

    @Test("B's writes go as B while A's are held; B's edit of A's entity is its own entry, behind A's")
    func otherAccountsWritesGo() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: A edits 1; B signs in, edits 1 too and creates 2
            let (auth, messages) = Self.signedInAsA(fixture)
            _ = try await messages.update(Message(id: "1", text: "ann's edit")).value
            auth.update(credential: "B", account: "B")
            _ = try await messages.update(Message(id: "1", text: "bob's edit")).value
            _ = try await messages.create(Message(id: "2", text: "bob's note")).value
            #expect(try await fixture.outbox().map(\.account) == ["A", "B", "B"])
            let forwarder = fixture.forwarder(messages)

            // When
            let flushed = try await forwarder.flush().value

            // Then: B's create went as B; entity 1 waits behind A's held write
            #expect(flushed.delivered == 1 && flushed.held.map(\.account) == ["A"])
            #expect(fixture.serverObject("2")?["text"] == "bob's note")
            let posts = fixture.server.requests.filter { $0.method == "POST" }
            #expect(posts.map { $0.header("authorization") } == ["Bearer B"])
            #expect(fixture.applied("1").isEmpty)

            // When: A's write is given up, B's edit of 1 goes, as B
            #expect(try await forwarder.discard(account: "A").value == 1)
            let after = try await forwarder.flush().value
            #expect(after.delivered == 1)
            #expect(Self.authorizations(fixture.server, "PUT", "1") == ["Bearer B"])
            #expect(fixture.serverObject("1")?["text"] == "bob's edit")
        }
    }

    @Test("B's create goes as B while A's later edit of the same entity is held behind it (not both held)")
    func earlierWriteOfHeldEntityGoes() async throws {
        try await withOutboxFixture(objects: []) { fixture in
            // Given: B creates 2; A, signed in again, edits it; then B signs in
            let (auth, messages) = Self.signedInAsA(fixture)
            auth.update(credential: "B", account: "B")
            _ = try await messages.create(Message(id: "2", text: "bob's note")).value
            auth.update(credential: "A", account: "A")
            _ = try await messages.update(Message(id: "2", text: "ann's edit")).value
            #expect(try await fixture.outbox().map(\.account) == ["B", "A"])
            auth.update(credential: "B", account: "B")
            let forwarder = fixture.forwarder(messages)

            // When
            let flushed = try await forwarder.flush().value

            // Then: B's create went as B; A's edit is held behind it
            #expect(flushed.delivered == 1 && flushed.held.map(\.account) == ["A"])
            #expect(fixture.serverObject("2")?["text"] == "bob's note")
            #expect(Self.authorizations(fixture.server, "PUT", "2").isEmpty)

            // When / Then: A signs in again, and A's edit goes as A
            auth.update(credential: "A", account: "A")
            #expect(try await forwarder.flush().value.delivered == 1)
            #expect(Self.authorizations(fixture.server, "PUT", "2") == ["Bearer A"])
            #expect(fixture.serverObject("2")?["text"] == "ann's edit")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("after a logout, A's write is held, never sent without a credential; A's sign-in sends it")
    func heldAfterLogout() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: A's edit recorded, then a logout
            let (auth, messages) = Self.signedInAsA(fixture)
            _ = try await messages.update(Message(id: "1", text: "ann's edit")).value
            auth.update(credential: nil)
            let forwarder = fixture.forwarder(messages)

            // When / Then: held, nothing sent
            let flushed = try await forwarder.flush().value
            #expect(flushed.held.map(\.account) == ["A"] && flushed.retrying == 0)
            #expect(fixture.server.requests.isEmpty)
            #expect(try await fixture.outbox().map(\.attempts) == [0], "never claimed, never counted")

            // When / Then: A signs in again, and the write goes as A
            auth.update(credential: "A", account: "A")
            #expect(try await forwarder.flush().value.delivered == 1)
            #expect(Self.authorizations(fixture.server, "PUT", "1") == ["Bearer A"])
        }
    }
}
