import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The next event of `events` that `matches`, skipping others; nil if the stream ends.
func next(
    _ events: inout AsyncStream<ForwarderEvent>.Iterator, where matches: (ForwarderEvent) -> Bool
) async -> ForwarderEvent? {
    while let event = await events.next() {
        if matches(event) { return event }
    }
    return nil
}

extension ForwarderEvent {
    var isDelivered: Bool { if case .delivered = self { true } else { false } }
    var isRetrying: Bool { if case .retrying = self { true } else { false } }
    var retryError: DepotError? { if case .retrying(_, let error) = self { error } else { nil } }
}

/// An interceptor that says yes to its first `grants` 401s, counting them.
final class Reauthorizer: RequestInterceptor {
    private let asked = LockedCounter()
    let grants: Int
    init(grants: Int) { self.grants = grants }
    var count: Int { asked.value }
    func adapt(_ request: NetworkRequest) async throws -> NetworkRequest { request }
    func shouldRetryUnauthorized(_ request: NetworkRequest, error: DepotError) async -> Bool {
        asked.increment() <= grants
    }
}

/// A counter several tasks may bump.
final class LockedCounter: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var count = 0
    var value: Int { lock.withLock { count } }
    /// Adds one; returns the new count.
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

@Suite struct ForwarderRetryTests {
    /// Each retryable answer, and the pause it must cause (base 1 s; Retry-After wins).
    static let retryable: [(fault: StubFault, pause: TimeInterval)] = [
        (.status(503), 1), (.status(500), 1), (.status(408), 1), (.status(429, headers: ["Retry-After": "7"]), 7),
        (.dropConnection, 1),
    ]

    @Test("every retry class waits its backoff on the injected clock, then delivers once", arguments: 0..<5)
    func retryClasses(index: Int) async throws {
        let (fault, pause) = Self.retryable[index]
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            // Given: one recorded write and a server that fails it once
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "edited")).value
            let forwarder = fixture.forwarder(messages)
            var events = forwarder.events.makeAsyncIterator()
            fixture.server.inject(fault, times: 1)
            // When
            forwarder.start()
            let retrying = try #require(await next(&events) { $0.isRetrying })
            // Then: it waits exactly the pause, and nothing goes before the clock gets there
            let due = try #require(retrying.entry.nextAttempt)
            #expect(abs(due.timeIntervalSince(fixture.clock.now) - pause) < 0.001)
            #expect(retrying.entry.attempts == 1 && retrying.entry.lastError != nil)
            #expect(fixture.serverObject("1")?["text"] == "one")
            fixture.clock.advance(by: .seconds(pause))
            #expect(await next(&events) { $0.isDelivered } != nil)
            #expect(fixture.serverObject("1")?["text"] == "edited")
            #expect(fixture.server.appliedWrites.count == 1)
            #expect(await forwarder.pendingCount == 0)
            await forwarder.stop()
        }
    }

    @Test("backoff doubles per failed attempt; a refused connection retries like any transport error")
    func exponentialBackoff() async throws {
        // Timeouts long enough that a refusal is never outrun by the deadline on a loaded machine.
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]], timeout: .seconds(60)) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "edited")).value
            let forwarder = fixture.forwarder(messages, requestTimeout: .seconds(60))
            var events = forwarder.events.makeAsyncIterator()
            try await fixture.server.goOffline()
            forwarder.start()
            var pauses: [TimeInterval] = []
            for round in 0..<3 {
                let retrying = try #require(await next(&events) { $0.isRetrying })
                #expect(retrying.retryError?.code == .transport)
                pauses.append(try #require(retrying.entry.nextAttempt).timeIntervalSince(fixture.clock.now))
                if round == 2 { try await fixture.server.goOnline() }
                fixture.clock.advance(by: .seconds(pauses[round]))
            }
            #expect(pauses.map { $0.rounded() } == [1, 2, 4])
            #expect(await next(&events) { $0.isDelivered } != nil)
            #expect(fixture.server.appliedWrites.count == 1)
            await forwarder.stop()
        }
    }

    @Test("401 goes to the session's interceptors once: granted, the write goes again; refused, it waits")
    func unauthorized() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            for (grants, delivered) in [(1, true), (0, false)] {
                let interceptor = Reauthorizer(grants: grants)
                let session = NetworkingSession(
                    url: fixture.server.url,
                    configuration: SessionConfiguration(timeout: .seconds(10), interceptors: [interceptor]))
                let messages = OutboxMessages(store: session, storage: fixture.storage, strategy: recordOnly)
                _ = try await messages.update(Message(id: "1", text: "granted \(grants)")).value
                fixture.server.inject(.status(401), times: 1)
                let report = try await Forwarder(
                    for: messages, configuration: ForwarderConfiguration(jitter: 0, clock: fixture.clock)
                )
                .flush().value
                #expect(interceptor.count == 1)
                #expect(report.delivered == (delivered ? 1 : 0) && report.retrying == (delivered ? 0 : 1))
                if !delivered { #expect(report.errors.first?.status == 401) }
                _ = try await Forwarder(for: messages).flush().value
                #expect(fixture.serverObject("1")?["text"] == .string("granted \(grants)"))
            }
        }
    }

    @Test("a 422 is moved aside with its status and body; the entity's later writes wait; retry and discard")
    func rejected() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"], ["id": "2", "text": "two"]]) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await fixture.repository().readAll().value
            _ = try await messages.update(Message(id: "1", text: "refused")).value
            fixture.server.inject(.status(422), times: 1, pathPrefix: "/messages/1")
            let forwarder = fixture.forwarder(messages)
            var report = try await forwarder.flush().value
            // Then: visible, with the server's answer; the record keeps its unsynced state
            let refused = try #require(report.rejected.first)
            #expect(refused.rejection?.status == 422)
            #expect(refused.rejection?.json == ["error": "injected fault 422"])
            #expect(try await forwarder.rejected.map(\.sequence) == [refused.sequence])
            #expect(try await fixture.stored("1")?.syncState == .updated)
            #expect(await forwarder.pendingCount == 0)
            // A later write to the same entity waits behind it; another entity's goes
            _ = try await messages.update(Message(id: "1", text: "after")).value
            _ = try await messages.update(Message(id: "2", text: "two, edited")).value
            report = try await forwarder.flush().value
            #expect(report.delivered == 1 && fixture.serverObject("2")?["text"] == "two, edited")
            #expect(fixture.serverObject("1")?["text"] == "one")
            #expect(await forwarder.pendingCount == 1)
            // Retried, both go, in order
            #expect(try await forwarder.retry(refused).value)
            report = try await forwarder.flush().value
            #expect(report.delivered == 2 && fixture.serverObject("1")?["text"] == "after")
            #expect(try await forwarder.rejected.isEmpty)
            // Discarded: the record goes back to the server's version
            _ = try await messages.update(Message(id: "2", text: "refused too")).value
            fixture.server.inject(.status(422), times: 1)
            let second = try #require(try await forwarder.flush().value.rejected.first)
            #expect(try await forwarder.discard(second).value)
            #expect(try await fixture.stored("2")?.object["text"] == "two, edited")
            #expect(try await fixture.stored("2")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("stop finishes the request in flight and stores its answer, then sends nothing more")
    func stopFinishesInFlight() async throws {
        try await withOutboxFixture(objects: messageObjects(1...3)) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            for id in 1...3 { _ = try await messages.update(Message(id: String(id), text: "edited \(id)")).value }
            fixture.server.inject(.delay(.milliseconds(300)), times: 1)
            let forwarder = fixture.forwarder(messages)
            forwarder.start()
            #expect(await eventuallyTrue { fixture.server.requests.count == 1 })
            await forwarder.stop()
            // The first write's answer is stored; nothing else was sent
            #expect(fixture.server.requests.count == 1)
            #expect(try await fixture.stored("1")?.syncState == .synced)
            #expect(await forwarder.pendingCount == 2)
        }
    }
}

/// Polls `condition` for up to 30 s.
func eventuallyTrue(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
