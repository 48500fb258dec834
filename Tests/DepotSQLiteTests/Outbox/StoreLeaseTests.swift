import Depot
import DepotSQLite
import DepotTesting
import Foundation
import GRDB
import SoakSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Leases granted by the store (issue 33 #7): expiry on the store's clock, never a replica's own;
/// liveness from the lease, never from a host name and a process id; and a sender that lost its
/// lease writes nothing back, on every road.
@Suite struct StoreLeaseTests {
    @Test(
        "a live lease whose owner names this host and process id, or an ended process of it, is not taken",
        arguments: StoreKind.allCases)
    func sameHostAndProcessID(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: two entries leased for an hour by owners that look like this process with
            // another token, and like a process of this host that has ended: containers that share
            // a host name all run as pid 1, and a pid of another namespace looks ended from here
            let repository = fixture.repository(strategy: recordOnly)
            for id in ["same-pid", "other-pid"] { _ = try await repository.create(Message(id: id, text: id)).value }
            let host = Self.hostName()
            let leases = [
                "same-pid": OutboxLease(owner: "\(host):\(getpid()):another-token#1", expiry: Date() + 3600),
                "other-pid": OutboxLease(
                    owner: "\(host):\(try Self.endedProcessID()):a-token#2", expiry: Date() + 3600),
            ]
            try await fixture.storage.transaction { tx in
                for (id, lease) in leases {
                    for var entry in try tx.outboxEntries(collection: "messages", entityID: id) {
                        entry.lease = lease
                        try tx.replaceOutbox(entry)
                    }
                }
            }

            // When: a forwarder of this process flushes
            let report = try await fixture.forwarder(maximumConcurrency: 2).flush().value

            // Then: neither was sent; both keep their leases, unattempted
            #expect(report.delivered == 0)
            #expect(fixture.server.appliedWrites.isEmpty)
            let waiting = try await fixture.outbox()
            #expect(Set(waiting.compactMap(\.lease?.owner)) == Set(leases.values.map(\.owner)))
            #expect(waiting.allSatisfy { $0.attempts == 0 })
        }
    }

    @Test("a replica whose clock runs 30 s fast does not take a live lease", arguments: StoreKind.allCases)
    func fastClockReplica(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, timeout: .seconds(60)) { fixture in
            // Given: one queued create; replica A (a true clock) and replica B (30 s fast) on one
            // store, with 10 s leases
            let repository = fixture.repository(strategy: recordOnly)
            _ = try await repository.create(Message(id: "m", text: "m")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            let otherStorage: Storage =
                if kind == .sqlite, let path = (fixture.storage as? SQLiteStorage)?.path {
                    try SQLiteStorage(path: path)
                } else {
                    fixture.storage
                }
            let other = OutboxMessages(store: fixture.session, storage: otherStorage, strategy: recordOnly)
            let replicaA = Forwarder(
                for: repository,
                configuration: ForwarderConfiguration(
                    jitter: 0, requestTimeout: .seconds(60), leaseDuration: .seconds(10)))
            let replicaB = Forwarder(
                for: other,
                configuration: ForwarderConfiguration(
                    jitter: 0, leaseDuration: .seconds(10), clock: OffsetClock(offset: 30)))
            // The server holds A's request until B has tried
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")

            // When: A's send is in flight, B flushes
            let sending = Task { try await replicaA.flush().value }
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "POST" } })
            let byB = try await replicaB.flush().value
            gate.open()
            let byA = try await sending.value

            // Then: B sent nothing; the create went once, by A
            #expect(byB.delivered == 0)
            #expect(byA.delivered == 1)
            #expect(fixture.server.requests.filter { $0.header("Idempotency-Key") == key }.count == 1)
            #expect(fixture.server.appliedWrites.count == 1 && fixture.server.replayedWrites == 0)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a batch push whose lease was taken meanwhile stores nothing: its entries and open batch stay with their new holder",
        arguments: StoreKind.allCases)
    func batchLostLease(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: two local creates, pushed in a batch; while the batch is at the server,
            // another sender takes its entries (as one does once a lease lapsed)
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.create(Message(id: "a", text: "A")).value
            _ = try await recording.create(Message(id: "b", text: "B")).value
            let storage = fixture.storage
            let thief = OutboxLease(owner: "another-sender", expiry: Date() + 3600)
            fixture.server.observe(.post, "/messages/collection") { _ in
                Self.blocking { try await Self.take(["a", "b"], as: thief, in: storage) }
            }
            let sync = SyncMessages(
                store: fixture.session, storage: storage, synchronization: SynchronizationConfiguration())

            // When
            _ = try await sync.synchronize().value

            // Then: the server applied the batch, but this sender wrote nothing back: the entries
            // are the other sender's, and the batch is still open for it to store its answer
            #expect(fixture.server.objects(in: "messages").count == 2)
            let entries = try await fixture.outbox()
            #expect(entries.map(\.entityID) == ["a", "b"])
            #expect(entries.allSatisfy { $0.lease?.owner == thief.owner })
            #expect(try await storage.fetch(collection: "__depot_outbox_batches", id: "open") != nil)
        }
    }

    @Test(
        "a delete push whose lease was taken meanwhile removes nothing: the tombstone and its entry stay with their new holder",
        arguments: StoreKind.allCases)
    func deleteLostLease(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "X"]]) { fixture in
            // Given: x read, then deleted locally; while its DELETE is at the server, another
            // sender takes its entry
            _ = try await fixture.repository().readAll().value
            _ = try await fixture.repository(strategy: recordOnly).delete(id: "x").value
            let storage = fixture.storage
            let thief = OutboxLease(owner: "another-sender", expiry: Date() + 3600)
            fixture.server.observe(.delete, "/messages/x") { _ in
                Self.blocking { try await Self.take(["x"], as: thief, in: storage) }
            }
            let sync = SyncMessages(
                store: fixture.session, storage: storage, synchronization: SynchronizationConfiguration())

            // When
            _ = try await sync.synchronize().value

            // Then: the server deleted x, but this sender wrote nothing back
            #expect(fixture.serverObject("x") == nil)
            let entries = try await fixture.outbox()
            #expect(entries.map(\.operation) == [.delete] && entries.allSatisfy { $0.lease?.owner == thief.owner })
            #expect(try await fixture.stored("x")?.syncState == .deleted)
        }
    }

    @Test(
        "on one SQLite file the lease clock never runs back: a writer whose clock is behind reads the latest time given"
    )
    func sqliteLeaseClockIsMonotonic() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("clock.sqlite")
        let storage = try SQLiteStorage(path: path)
        let sequence = try await storage.transaction { tx in
            try tx.appendOutbox(
                OutboxEntry(sequence: 0, collection: "c", entityID: "1", operation: .delete, payload: nil))
        }
        // Given: the file gave a time 100 s ahead of this host's clock (a writer whose clock ran
        // ahead, then was set back)
        let ahead = Date().timeIntervalSince1970 + 100
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO lease_clock (id, latest) VALUES (0, ?)", arguments: [ahead])
        }
        // When: this writer claims an entry with a 10 s lease
        let (claim, claimed) = try await OutboxClaimProbe.take(sequence, in: storage, duration: 10)
        // Then: its time is that latest time, and the lease runs 10 s past it
        #expect(claim.timeIntervalSince1970 >= ahead)
        #expect(claimed.map { $0.lease?.expiry.timeIntervalSince1970 ?? 0 }.allSatisfy { $0 >= ahead + 10 - 0.001 })
        try storage.close()
    }

    /// Leases the entries of `ids` to `lease`, as another sender's claim would.
    private static func take(_ ids: [String], as lease: OutboxLease, in storage: Storage) async throws {
        try await storage.transaction { tx in
            for id in ids {
                for var entry in try tx.outboxEntries(collection: "messages", entityID: id) {
                    entry.lease = lease
                    try tx.replaceOutbox(entry)
                }
            }
        }
    }

    /// Runs `body` to its end (at most 60 s: a failure cannot hang, and a loaded machine is not cut
    /// short) from synchronous code: a server observer.
    private static func blocking(_ body: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await body()
            done.signal()
        }
        _ = done.wait(timeout: .now() + 60)
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The id of no running process: one past the kernel's largest pid (what an ended process's
    /// id looked like to the old host/pid liveness check). No child is spawned: `Process.run()`
    /// beside another suite's launch (the real-server suites) crashed Foundation once.
    static func endedProcessID() throws -> Int32 {
        let text = (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)) ?? ""
        let pidMax = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 4_194_304
        return pidMax < Int32.max ? pidMax + 1 : pidMax
    }
}

/// A claim as a sender makes it, through the public transaction API: the store's time read in the
/// claim's transaction, the lease granted from it.
enum OutboxClaimProbe {
    /// Claims `sequence` for `duration` seconds; returns the store's time and the entries claimed.
    static func take(_ sequence: Int64, in storage: Storage, duration: TimeInterval) async throws
        -> (Date, [OutboxEntry])
    {
        try await storage.transaction { tx in
            let now = try tx.leaseTime()
            let lease = OutboxLease(owner: "probe:1:\(UUID().uuidString)#1", expiry: now.addingTimeInterval(duration))
            return (now, try tx.claimOutbox(sequences: [sequence], lease: lease, now: now))
        }
    }
}
