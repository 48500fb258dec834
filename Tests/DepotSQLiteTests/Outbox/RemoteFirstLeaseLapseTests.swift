import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A remote-first write whose lease lapses while its request is out: the sender that took the
/// entry since owns its answer. The write's own sender stores nothing (the fence on every write
/// of the entry), the server applies the write once (one key), and the entry is delivered once,
/// by the sender that holds it.
@Suite struct RemoteFirstLeaseLapseTests {
    @Test(
        "a remote-first update whose lease lapsed and was taken while it was out stores nothing; the taker delivers it once"
    )
    func lapsedLeaseStoresNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: x stored synced; a second storage object on the same file (a replica) with
            // its forwarder; while the app's remote-first update of x is at the server, its lease
            // lapses on the store's clock (its process paused past the expiry) and a sender of
            // another process claims the entry
            server.resource("messages", objects: [["id": "x", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let path = directory.path("shared.sqlite")
            let storage = try SQLiteStorage(path: path)
            let replica = try SQLiteStorage(path: path)
            let messages = OutboxMessages(store: session, storage: storage)
            _ = try await messages.readAll().value
            let taker = "replica:1:\(UUID().uuidString)#1"
            let puts = LockedValue(0)
            server.observe(.put, "/messages/x") { _ in
                guard
                    puts.withLock({ count -> Bool in
                        count += 1
                        return count == 1
                    })
                else { return }
                Self.blocking { try await Self.lapseAndTake("x", owner: taker, in: replica) }
            }

            // When: the app updates x, remote-first
            let answer = try await messages.update(Message(id: "x", text: "b")).value

            // Then: the server applied it, but the app's sender wrote nothing back: the entry is
            // the replica's, the record still the local write over the old snapshot
            #expect(answer.origin == .local && answer.fallbackError?.code == .queuedBehindEarlierWrites)
            #expect(server.appliedWrites.filter { $0.id == "x" }.count == 1)
            let entries = try await storage.outbox(OutboxQuery(selection: .all))
            #expect(entries.count == 1 && entries.first?.lease?.owner == taker)
            let held = try #require(try await storage.fetch(collection: "messages", id: "x"))
            #expect(held.syncState == .updated && held.object["text"] == "b" && held.snapshot?["text"] == "a")

            // When: the replica's claim lapses in turn, and its forwarder flushes
            try await Self.lapseAndTake("x", owner: nil, in: replica)
            let forwarder = Forwarder(
                for: OutboxMessages(store: session, storage: replica, strategy: recordOnly),
                configuration: ForwarderConfiguration(baseDelay: .seconds(1), jitter: 0))
            let report = try await forwarder.flush().value

            // Then: delivered once, under the same key: the server replays it, applies nothing more
            #expect(report.delivered == 1)
            let key = try #require(entries.first?.idempotencyKey)
            #expect(server.requests.filter { $0.header("Idempotency-Key") == key }.count == 2)
            #expect(server.appliedWrites.filter { $0.id == "x" }.count == 1 && server.replayedWrites == 1)
            #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
            let record = try #require(try await storage.fetch(collection: "messages", id: "x"))
            #expect(record.syncState == .synced && record.object["text"] == "b")
        }
    }

    /// Moves the lease on `id`'s entries into the past (it lapsed on the store's clock), then,
    /// with an `owner`, writes them as a claim of another process writes them: leased to
    /// `owner`, one more attempt. Only another process takes an entry whose sender is alive:
    /// it cannot see that sender's open claim, so it judges by the expiry alone (a sender of this
    /// process never takes it; see `RemoteFirstClaimTests.openClaimOutlivesItsLease`).
    static func lapseAndTake(_ id: String, owner: String?, in storage: Storage) async throws {
        try await storage.transaction { tx in
            let now = try tx.leaseTime()
            for var entry in try tx.outboxEntries(collection: "messages", entityID: id) {
                entry.lease?.expiry = now.addingTimeInterval(-1)
                if let owner {
                    entry.lease = OutboxLease(owner: owner, expiry: now.addingTimeInterval(3600))
                    entry.attempts += 1
                }
                try tx.replaceOutbox(entry)
            }
        }
    }

    /// Runs `body` to its end (at most 60 s: a failure cannot hang, and a loaded machine is not cut
    /// short) from synchronous code: a server observer.
    static func blocking(_ body: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await body()
            done.signal()
        }
        _ = done.wait(timeout: .now() + 60)
    }
}
