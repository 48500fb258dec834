import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Regression tests for "a remote-first create whose answer is lost is applied twice": a direct
/// write carries an `Idempotency-Key` made before it is sent, and the fallback that records it in
/// the outbox keeps that key.
@Suite struct DirectWriteIdempotencyTests {
    @Test("a remote-first create whose answer is lost is applied once", arguments: StoreKind.allCases)
    func lostCreateAnswer(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: the server applies the POST, then drops the connection without answering
            fixture.server.inject(.applyThenDropConnection)
            let messages = fixture.repository()
            // When
            let created = try await messages.create(Message(id: "m1", text: "hello")).value
            #expect(created.origin == .local)
            let entry = try #require(try await fixture.outbox().first)
            let post = try #require(fixture.server.requests.first { $0.method == "POST" })
            #expect(post.header("Idempotency-Key") == entry.idempotencyKey)
            let report = try await fixture.forwarder(messages).flush().value
            // Then: the forwarded POST was answered from the server's memory of the key
            #expect(report.delivered == 1)
            #expect(fixture.applied("m1").count == 1)
            #expect(fixture.server.replayedWrites == 1)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(try await fixture.stored("m1")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a dictionary create gets a client id before it is sent; a lost answer is applied once",
        arguments: StoreKind.allCases)
    func lostDictionaryCreateAnswer(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given
            fixture.server.inject(.applyThenDropConnection)
            let messages = fixture.repository()
            // When
            let created = try await messages.create(["text": "no id"]).value
            let report = try await fixture.forwarder(messages).flush().value
            // Then: one object on the server, under the id the client chose and stores
            #expect(created.origin == .local && !created.value.id.isEmpty)
            #expect(report.delivered == 1)
            let objects = fixture.server.objects(in: "messages")
            #expect(objects.map { $0["id"] } == [.string(created.value.id)])
            #expect(fixture.server.appliedWrites.count == 1)
            #expect(try await fixture.stored(created.value.id)?.syncState == .synced)
        }
    }

    /// The read before the patch leaves a kept-alive connection; URLSession on Linux does not see
    /// that connection dropped after the PATCH and waits for its timeout, so the timeout is short
    /// here (the behaviour under test is the key, not the wait).
    @Test("a remote-first patch whose answer is lost is applied once", arguments: StoreKind.allCases)
    func lostPatchAnswer(kind: StoreKind) async throws {
        let objects: [JSONObject] = [["id": "1", "text": "one"]]
        try await withOutboxFixture(kind, objects: objects, timeout: .milliseconds(500)) { fixture in
            // Given
            let messages = fixture.repository()
            var one = try await messages.read("1").value.value
            one.text = "edited"
            fixture.server.inject(.applyThenDropConnection)
            // When
            let patched = try await messages.patch(one).value
            let report = try await fixture.forwarder(messages).flush().value
            // Then
            #expect(patched.origin == .local)
            #expect(report.delivered == 1)
            let patches = fixture.server.requests.filter { $0.method == "PATCH" }
            #expect(patches.count == 2)
            #expect(Set(patches.compactMap { $0.header("Idempotency-Key") }).count == 1)
            #expect(fixture.applied("1").count == 1)
            #expect(fixture.serverObject("1")?["text"] == "edited")
        }
    }

    @Test(
        "a remote-first update or delete whose answer is lost is applied once (found by the soak)",
        arguments: ["update", "delete"])
    func lostUpdateOrDeleteAnswer(operation: String) async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given
            let messages = fixture.repository()
            fixture.server.inject(.applyThenDropConnection)
            // When
            let answer =
                operation == "update"
                ? try await messages.update(Message(id: "1", text: "two")).value.origin
                : try await messages.delete(id: "1").value.origin
            let report = try await fixture.forwarder(messages).flush().value
            // Then: the resend carried the direct send's key and was answered from memory
            #expect(answer == .local && report.delivered == 1)
            let sends = fixture.server.requests.filter { $0.method != "GET" }
            #expect(sends.count == 2 && Set(sends.compactMap { $0.header("Idempotency-Key") }).count == 1)
            #expect(fixture.applied("1").count == 1 && fixture.server.replayedWrites == 1)
        }
    }

    @Test("a 429 falls back like a 5xx: the write is kept and forwarded under its key", arguments: [408, 429])
    func tooManyRequestsFallsBack(status: Int) async throws {
        try await withOutboxFixture { fixture in
            // Given
            fixture.server.inject(.status(status, headers: ["Retry-After": "0"]))
            let messages = fixture.repository()
            // When
            let created = try await messages.create(Message(id: "m1", text: "a")).value
            let report = try await fixture.forwarder(messages).flush().value
            // Then
            #expect(created.origin == .local && created.fallbackError?.status == status)
            #expect(report.delivered == 1 && fixture.applied("m1").count == 1)
        }
    }

    @Test("a write whose host name could not be resolved is recorded as unsent and folds with later writes")
    func unresolvedHostIsUnsent() async throws {
        try await withOutboxFixture { fixture in
            // Given: a host name that never resolves (RFC 6761 reserves .invalid)
            let session = NetworkingSession(url: URL(string: "http://depot-tests.invalid:9")!)
            let messages = OutboxMessages(store: session, storage: fixture.storage)
            // When
            _ = try await messages.create(Message(id: "m1", text: "a")).value
            _ = try await messages.update(Message(id: "m1", text: "b")).value
            // Then: one create entry holding the newest text, never counted as sent
            let entries = try await fixture.outbox()
            #expect(entries.count == 1)
            #expect(entries.first?.operation == .create && entries.first?.attempts == 0)
            #expect(entries.first?.payload?["text"] == "b")
        }
    }

    @Test("a write refused on a session that never had a connection open was not sent: later writes fold into it")
    func refusedWithoutConnectionIsUnsent() async throws {
        try await withOutboxFixture { fixture in
            // Given: a server gone before the session ever connected
            try await fixture.server.goOffline()
            let messages = fixture.repository()
            // When
            let created = try await messages.create(Message(id: "m1", text: "a")).value
            _ = try await messages.update(Message(id: "m1", text: "b")).value
            // Then: one create entry holding the newest text, never counted as sent (before: a
            // create and an update, each sent)
            let entries = try await fixture.outbox()
            #expect(created.origin == .local)
            #expect(entries.map(\.operation) == [.create])
            #expect(entries.map(\.payload?["text"]) == ["b"])
            #expect(entries.first?.attempts == 0)
        }
    }

    @Test(
        "a write refused after the session had a live connection may have reached the server; the next refusal, on a fresh pool, did not"
    )
    func refusedAfterConnectionMayBeSent() async throws {
        try await withOutboxFixture(objects: [["id": "0", "text": "zero"]]) { fixture in
            // Given: a session that talked to the server (a kept-alive connection in its pool)
            let messages = fixture.repository()
            _ = try await messages.read("0").value
            try await fixture.server.goOffline()
            // When
            _ = try await messages.create(Message(id: "m1", text: "a")).value
            _ = try await messages.update(Message(id: "m1", text: "b")).value
            _ = try await messages.create(Message(id: "m2", text: "c")).value
            _ = try await messages.update(Message(id: "m2", text: "d")).value
            // Then: m1's create keeps the key it may have been applied under and its update goes
            // after it; m2's create, refused on the fresh pool, was not sent and holds its update
            let entries = try await fixture.outbox()
            #expect(entries.map(\.operation) == [.create, .update, .create])
            #expect(entries.map(\.entityID) == ["m1", "m1", "m2"])
            #expect(entries.map(\.payload?["text"]) == ["a", "b", "d"])
            #expect(entries.map(\.attempts) == [1, 0, 0])
        }
    }

    @Test("a local write made while a remote update is out is not overwritten by its answer")
    func newerLocalWriteSurvivesRemoteAnswer() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]], timeout: .seconds(60)) { fixture in
            // Given: a remote update whose answer the server holds back
            let messages = fixture.repository()
            _ = try await messages.read("1").value
            // (held until the test opens the gate, however slow the machine)
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/1")
            async let remote = messages.update(Message(id: "1", text: "remote")).value
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "PUT" } })
            // When: a local write to the same id is recorded meanwhile
            _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "newer")).value
            gate.open()
            let answer = try await remote
            // Then: the newer local write stays, pending; the snapshot is what the server holds
            #expect(answer.origin == .remote && answer.value.text == "remote")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.object["text"] == "newer" && stored.syncState == .updated)
            #expect(stored.snapshot?["text"] == "remote")
            #expect(try await fixture.outbox().map(\.payload?["text"]) == ["newer"])
        }
    }

    @Test("createMethod .put sends PUT /path/:id with the client's id")
    func putToCreate() async throws {
        try await withStubServer { server in
            // Given
            server.route(.put, "/messages/:id") { request, _ in
                .json(request.json ?? .null, status: 201)
            }
            let repository = PutCreatedMessages(store: NetworkingSession(url: server.url))
            // When
            let created = try await repository.create(Message(id: "c 1", text: "hi")).value
            // Then
            let request = try #require(server.requests.last)
            #expect(request.method == "PUT" && request.rawPath == "/messages/c%201")
            #expect(request.header("Idempotency-Key") != nil)
            #expect(created == Message(id: "c 1", text: "hi"))
            await #expect(throws: DepotError.self) { try await repository.create(["text": "no id"]).value }
        }
    }
}

/// Creates with `PUT /messages/:id`.
struct PutCreatedMessages: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    var configuration: RepositoryConfiguration { RepositoryConfiguration(createMethod: .put) }
}

@Suite struct ForwarderRequestTimeoutTests {
    @Test("a send on a dead kept-alive connection gives up at the forwarder's requestTimeout; the resend lands once")
    func deadConnection() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: a kept-alive connection, and an update recorded for the forwarder
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "two")).value
            let forwarder = Forwarder(
                for: fixture.repository(),
                configuration: ForwarderConfiguration(
                    baseDelay: .seconds(1), jitter: 0, requestTimeout: .milliseconds(300), clock: fixture.clock))
            fixture.server.inject(.applyThenDropConnection)
            // When
            let first = try await forwarder.flush().value
            var delivered = first.delivered
            for _ in 0..<10 where delivered == 0 { delivered += try await forwarder.flush().value.delivered }
            // Then: the first send timed out at 0.3 s (not the session's 10 s); a resend was
            // answered from the server's memory of the key
            let error = try #require(first.errors.first)
            #expect(first.retrying == 1 && error.code == .timeout && error.message.contains("0.3"))
            #expect(delivered == 1)
            #expect(fixture.applied("1").count == 1 && fixture.server.replayedWrites >= 1)
        }
    }

    @Test("the forwarder's requestTimeout caps a longer session timeout and never lengthens a shorter one")
    func capNeverLengthens() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]], timeout: .milliseconds(300)) { fixture in
            // Given: a session that waits 0.3 s, a forwarder left at its 10 s default, and a
            // kept-alive connection the server closes after applying the update
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "two")).value
            let forwarder = Forwarder(
                for: fixture.repository(),
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0, clock: fixture.clock))
            fixture.server.inject(.applyThenDropConnection)
            // When
            let first = try await forwarder.flush().value
            // Then: the send gave up at the session's 0.3 s, not the forwarder's 10 s
            let error = try #require(first.errors.first)
            #expect(first.retrying == 1 && error.code == .timeout && error.message.contains("0.3"), "\(error)")
        }
    }
}
