import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ForwarderConflictTests {
    /// Someone else changes message 1 on the server after we read it; we edit it offline.
    func staleEdit(
        _ fixture: OutboxFixture, policy: ConflictPolicy, theirs: JSONObject = ["text": "theirs"], events count: Int
    ) async throws -> (ForwardingReport, [ForwarderEvent]) {
        _ = try await fixture.repository().read("1").value
        _ = try await fixture.session.request(
            .patch, "messages/1", headers: ["Content-Type": "application/merge-patch+json"], body: .object(theirs)
        ).value
        let messages = fixture.repository(strategy: recordOnly, conflictPolicy: policy)
        _ = try await messages.update(Message(id: "1", text: "mine", likes: 2)).value
        let forwarder = fixture.forwarder(messages)
        let events = forwarder.events
        let report = try await forwarder.flush().value
        await forwarder.stop()
        // The flush has ended: its events are in the stream's buffer.
        var seen: [ForwarderEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == count { break }
        }
        return (report, seen)
    }

    @Test("server wins: the server's version is stored as synced and the local write is reported, not sent")
    func serverWins() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let (report, events) = try await staleEdit(fixture, policy: .serverWins, events: 1)
            #expect(report.conflicts == 1 && report.delivered == 0)
            #expect(events.contains { if case .conflict(_, .serverWins) = $0 { true } else { false } })
            #expect(fixture.serverObject("1")?["text"] == "theirs")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "theirs")
            #expect(stored.etag == fixture.server.etag(of: "1", in: "messages"))
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("client wins: the write is sent again over the fresh ETag, under a new key, and applied once")
    func clientWins() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let (report, events) = try await staleEdit(fixture, policy: .clientWins, events: 2)
            #expect(events.map(\.entry.sequence).count == 2 && events.last?.isDelivered == true)
            #expect(report.conflicts == 1 && report.delivered == 1)
            #expect(fixture.serverObject("1")?["text"] == "mine" && fixture.serverObject("1")?["likes"] == 2)
            let ours = fixture.applied("1").filter { $0.method == "PUT" }
            #expect(ours.count == 1)
            #expect(try await fixture.stored("1")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("a custom policy gets both versions and its merge is sent")
    func customMerge() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let seen = LockedBox<OutboxConflict?>(nil)
            let policy = ConflictPolicy.custom { conflict in
                seen.set(conflict)
                var merged = conflict.server ?? [:]
                merged["likes"] = conflict.local?["likes"]
                return .merge(merged)
            }
            let (report, _) = try await staleEdit(fixture, policy: policy, events: 2)
            let conflict = try #require(seen.get())
            #expect(conflict.status == 412)
            #expect(conflict.local?["text"] == "mine" && conflict.server?["text"] == "theirs")
            #expect(report.delivered == 1)
            #expect(fixture.serverObject("1")?["text"] == "theirs" && fixture.serverObject("1")?["likes"] == 2)
            #expect(try await fixture.stored("1")?.object["likes"] == 2)
        }
    }

    @Test("a stale If-Match whose write the server already holds counts as delivered, not as a conflict")
    func alreadyApplied() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let (report, events) = try await staleEdit(
                fixture, policy: .serverWins, theirs: ["text": "mine", "likes": 2, "author": .null], events: 1)
            #expect(report.delivered == 1 && report.conflicts == 0)
            #expect(!events.contains { if case .conflict = $0 { true } else { false } })
            #expect(try await fixture.stored("1")?.syncState == .synced)
        }
    }

    @Test("a 412 to the conflict's read of the server's version waits for a retry; it does not refuse the write")
    func conflictReadFails() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.update(Message(id: "1", text: "mine")).value
            // The write meets a 412, and so does the GET that reads the server's version.
            fixture.server.inject(.status(412), times: 2)
            let forwarder = fixture.forwarder(messages)
            let first = try await forwarder.flush().value
            #expect(first.rejected.isEmpty && first.retrying == 1 && first.delivered == 0)
            let waiting = try #require(try await fixture.outbox().first)
            #expect(waiting.rejection == nil && waiting.failures == 1)
            fixture.clock.advance(by: .seconds(5))
            let second = try await forwarder.flush().value
            await forwarder.stop()
            #expect(second.delivered == 1 && second.rejected.isEmpty)
            #expect(fixture.serverObject("1")?["text"] == "mine")
            #expect(try await fixture.stored("1")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("an answer lost after the server applied it: the resend carries the same key and is not applied twice")
    func lostAnswer() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"]]) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "new", text: "created")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            fixture.server.inject(.applyThenDropConnection, times: 1)
            let forwarder = fixture.forwarder(messages)
            // The client hears nothing (libcurl may resend on its own; either way the key is the same)
            let first = try await forwarder.flush().value
            #expect(first.retrying + first.delivered == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1)
            let second = try await forwarder.flush().value
            #expect(first.delivered + second.delivered == 1)
            #expect(fixture.server.appliedCount(idempotencyKey: key) == 1 && fixture.server.replayedWrites >= 1)
            #expect(fixture.server.objects(in: "messages").count == 2)
            #expect(try await fixture.stored("new")?.syncState == .synced)
        }
    }
}

/// A value several tasks may set and read.
final class LockedBox<Value: Sendable>: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
