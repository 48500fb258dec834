import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct OutboxLeaseTests {
    @Test("two storage objects on one file, four forwarders at once: 120 writes, each sent once")
    func twoStoragesOneFile() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            let path = try #require((fixture.storage as? SQLiteStorage)?.path)
            let second = try SQLiteStorage(path: path)
            let first = fixture.repository(strategy: recordOnly)
            let other = OutboxMessages(store: fixture.session, storage: second, strategy: recordOnly)
            // Given: 120 writes recorded (pages of 16: 8 pages the four race over), half through each storage object
            for index in 0..<120 {
                let repository = index.isMultiple(of: 2) ? first : other
                _ = try await repository.create(Message(id: "m\(index)", text: "message \(index)")).value
            }
            let configuration = ForwarderConfiguration(maximumConcurrency: 4, jitter: 0, pageSize: 16)
            let forwarders = [
                Forwarder(for: first, configuration: configuration),
                Forwarder(for: first, configuration: configuration),
                Forwarder(for: other, configuration: configuration),
                Forwarder(for: other, configuration: configuration),
            ]
            // When: all four flush at once
            let reports = try await withThrowingTaskGroup(of: ForwardingReport.self) { group in
                for forwarder in forwarders { group.addTask { try await forwarder.flush().value } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Then: every entry went exactly once, by one forwarder, and none was sent twice
            #expect(reports.map(\.delivered).reduce(0, +) == 120)
            #expect(fixture.server.appliedWrites.count == 120)
            #expect(Set(fixture.server.appliedWrites.map(\.idempotencyKey)).count == 120)
            #expect(fixture.server.replayedWrites == 0)
            #expect(fixture.server.requests.filter { $0.method == "POST" }.count == 120)
            #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 0)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test("a send slower than its lease keeps the lease: renewed in flight, the entry goes once")
    func leaseRenewedWhileSending() async throws {
        try await withOutboxFixture(.sqlite, timeout: .seconds(60)) { fixture in
            let path = try #require((fixture.storage as? SQLiteStorage)?.path)
            let second = try SQLiteStorage(path: path)
            let first = fixture.repository(strategy: recordOnly)
            let other = OutboxMessages(store: fixture.session, storage: second, strategy: recordOnly)
            _ = try await first.create(Message(id: "slow", text: "slow")).value
            let key = try #require(try await fixture.outbox().first?.idempotencyKey)
            // Given: leases of 3 s (on the store's clock, renewed every second on this process's),
            // and a server that holds the answer until the rival has tried
            let configuration = ForwarderConfiguration(
                jitter: 0, requestTimeout: .seconds(60), leaseDuration: .seconds(3))
            let sender = Forwarder(for: first, configuration: configuration)
            let rival = Forwarder(for: other, configuration: configuration)
            try await fixture.openConnection()
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages")

            // When: the first forwarder's send is in flight past the end of its first lease
            let sending = Task { try await sender.flush().value }
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "POST" } })
            let granted = try #require(try await fixture.outbox().first?.lease?.expiry)
            var renewed = false
            for _ in 0..<800 where !renewed {
                let expiry = try await fixture.outbox().first?.lease?.expiry ?? .distantPast
                renewed = Date() > granted && expiry > granted
                if !renewed { try await Task.sleep(for: .milliseconds(10)) }  // polling, bounded
            }
            // ... another forwarder on the same file tries it
            let rivalDelivered = try await rival.flush().value.delivered
            gate.open()
            let report = try await sending.value

            // Then: the lease was renewed, never lost: the rival sent nothing, the entry went once
            #expect(renewed)
            #expect(report.delivered == 1 && rivalDelivered == 0)
            #expect(fixture.server.requests.filter { $0.header("Idempotency-Key") == key }.count == 1)
            #expect(fixture.server.appliedWrites.count == 1)
            #expect(try await fixture.stored("slow")?.syncState == .synced)
            #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 0)
        }
    }

    @Test(
        "a live lease holds an entry back, whoever holds it; a lapsed one is taken (a crashed sender's, once it lapses)",
        arguments: StoreKind.allCases)
    func leaseStates(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let repository = fixture.repository(strategy: recordOnly)
            for id in ["live", "lapsed"] {
                _ = try await repository.create(Message(id: id, text: id)).value
            }
            let now = Date()  // leases are on the store's clock: this host's, for SQLite and memory
            let leases: [String: OutboxLease] = [
                "live": OutboxLease(owner: "elsewhere:4242:abcd1234#1", expiry: now.addingTimeInterval(3600)),
                // A sender that crashed: its lease lapsed, nobody renews it.
                "lapsed": OutboxLease(owner: "elsewhere:4242:abcd1234#2", expiry: now.addingTimeInterval(-1)),
            ]
            try await fixture.storage.transaction { tx in
                for (id, lease) in leases {
                    for var entry in try tx.outboxEntries(collection: "messages", entityID: id) {
                        entry.lease = lease
                        try tx.replaceOutbox(entry)
                    }
                }
            }
            // When
            let forwarder = fixture.forwarder(maximumConcurrency: 2)
            let report = try await forwarder.flush().value
            // Then: only the live lease kept its entry back, untouched
            #expect(report.delivered == 1)
            #expect(fixture.applied("lapsed").count == 1)
            #expect(fixture.applied("live").isEmpty)
            let waiting = try await fixture.outbox()
            #expect(waiting.map(\.entityID) == ["live"])
            // (SQLite keeps the expiry as seconds in a REAL: equal to the microsecond.)
            let kept = try #require(waiting.first?.lease)
            #expect(kept.owner == leases["live"]?.owner)
            #expect(abs(kept.expiry.timeIntervalSince(now.addingTimeInterval(3600))) < 0.001)
            #expect(waiting.first?.attempts == 0)
            // When the live lease lapses, the next flush takes it
            try await fixture.storage.transaction { tx in
                for var entry in try tx.outboxEntries(collection: "messages", entityID: "live") {
                    entry.lease?.expiry = Date().addingTimeInterval(-1)
                    try tx.replaceOutbox(entry)
                }
            }
            #expect(try await forwarder.flush().value.delivered == 1)
            #expect(fixture.applied("live").count == 1)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a claim leaves no lease behind: delivered, failed and skipped entries are all released",
        arguments: StoreKind.allCases)
    func leasesReleased(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let repository = fixture.repository(strategy: recordOnly)
            for index in 0..<3 { _ = try await repository.create(Message(id: "m\(index)", text: "x")).value }
            fixture.server.inject(.status(503), times: 1)
            // When: the first send fails, so the pass stops with the rest unsent
            let report = try await fixture.forwarder().flush().value
            // Then: nothing is left leased, so another sender could take every entry now
            #expect(report.delivered == 0)
            let entries = try await fixture.outbox()
            #expect(entries.count == 3)
            #expect(entries.allSatisfy { $0.lease == nil })
        }
    }

    @Test("the lease columns survive a reopen of the file")
    func leaseStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("lease.sqlite")
        let lease = OutboxLease(owner: "elsewhere:1:abcd#9", expiry: Date(timeIntervalSince1970: 2_000_000_000))
        do {
            let storage = try SQLiteStorage(path: path)
            try await storage.transaction { tx in
                let sequence = try tx.appendOutbox(
                    OutboxEntry(sequence: 0, collection: "c", entityID: "1", operation: .delete, payload: nil))
                let claimed = try tx.claimOutbox(sequences: [sequence], lease: lease, now: Date())
                #expect(claimed.map(\.lease) == [lease] && claimed.map(\.attempts) == [1])
                // Held: a second claim takes nothing
                #expect(try tx.claimOutbox(sequences: [sequence], lease: lease, now: Date()).isEmpty)
            }
            try storage.close()
        }
        let reopened = try SQLiteStorage(path: path)
        let entries = try await reopened.outbox(OutboxQuery(selection: .all))
        #expect(entries.map(\.lease) == [lease])
        let released = try await reopened.transaction { tx in
            try tx.releaseOutbox(sequences: entries.map(\.sequence), owner: "someone else")
                + tx.releaseOutbox(sequences: entries.map(\.sequence), owner: lease.owner)
        }
        #expect(released == 1)
        #expect(try await reopened.outbox(OutboxQuery(selection: .all)).map(\.lease) == [nil])
    }
}

@Suite struct InMemoryTransactionTests {
    @Test("a body that throws leaves records and outbox as they were")
    func rollBack() async throws {
        let storage = InMemoryStorage()
        try await storage.transaction { tx in
            try tx.upsert(StoredRecord(collection: "c", id: "1", object: ["v": 1], syncState: .created))
            try tx.recordOutbox(collection: "c", entityID: "1", operation: .create, payload: ["v": 1])
        }
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await storage.transaction { tx in
                try tx.delete(collection: "c", id: "1")
                let entry = try #require(tx.outboxEntries(collection: "c", entityID: "1").first)
                try tx.removeOutbox(sequence: entry.sequence)
                try tx.appendOutbox(
                    OutboxEntry(sequence: 0, collection: "c", entityID: "2", operation: .delete, payload: nil))
                throw Failure()
            }
        }
        #expect(try await storage.fetch(collection: "c", id: "1")?.object == ["v": 1])
        let entries = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(entries.map(\.entityID) == ["1"])
        // The sequence a rolled-back append took is given again (nothing of it was kept).
        let next = try await storage.transaction { tx in
            try tx.appendOutbox(
                OutboxEntry(sequence: 0, collection: "c", entityID: "3", operation: .delete, payload: nil))
        }
        #expect(next == entries[0].sequence + 1)
    }
}
