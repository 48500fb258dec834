import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The outbox and lease half of the storage contract (see ``StorageConformanceTests``).
extension StorageConformanceTests {
    // MARK: - Outbox

    @Test(
        "appendOutbox gives rising sequences; replace and remove say whether they found",
        arguments: StorageKind.allCases)
    func outboxWrites(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        let first = try await Conformance.append(
            [Conformance.entry("a"), Conformance.entry("b", .create), Conformance.entry("a", .patch)], to: storage)
        let second = try await Conformance.append([Conformance.entry("a", .delete)], to: storage)
        let sequences = first + second
        #expect(sequences == sequences.sorted() && Set(sequences).count == 4, "\(sequences)")
        // When
        let (entries, found, lost) = try await storage.transaction { tx in
            var rejected = try #require(try tx.outboxEntry(sequence: sequences[2]))
            rejected.rejection = Conformance.rejection
            let replaced = try tx.replaceOutbox(rejected)
            var ghost = rejected
            ghost.sequence = sequences[3] + 1_000
            let entries = try tx.outboxEntries(collection: "messages", entityID: "a")
            return (
                entries, [replaced, try tx.removeOutbox(sequence: sequences[1])],
                [
                    try tx.replaceOutbox(ghost), try tx.removeOutbox(sequence: ghost.sequence),
                ]
            )
        }
        // Then
        #expect(found == [true, true])
        #expect(lost == [false, false])
        #expect(entries.map(\.sequence) == [sequences[0], sequences[2], sequences[3]], "rejected ones included")
        #expect(entries.map(\.operation) == [.update, .patch, .delete])
        #expect(entries[1].rejection == Conformance.rejection)
        #expect(entries[0].payload == ["text": "x"] && entries[2].payload == nil)
        let stored = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(stored.map(\.sequence) == [sequences[0], sequences[2], sequences[3]])
        #expect(stored == entries, "read back outside the transaction, the entries are the same")
        // And: a sequence is never given twice, even after the last entry is removed.
        try await storage.transaction { tx in _ = try tx.removeOutbox(sequence: sequences[3]) }
        let next = try await Conformance.append([Conformance.entry("c")], to: storage)
        #expect(next[0] > sequences[3])
    }

    @Test("an outbox entry reads back with every field it was stored with", arguments: StorageKind.allCases)
    func outboxRoundTrip(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given
        let sequence = try await Conformance.append([Conformance.entry("a", .patch, payload: ["n": nil])], to: storage)[
            0]
        let full = OutboxEntry(
            sequence: sequence, collection: "messages", entityID: "a", operation: .patch,
            payload: ["n": nil, "deep": ["x": [1, "two", 3.5, true]]], idempotencyKey: "key-é", attempts: 3,
            failures: 2,
            nextAttempt: Conformance.now.addingTimeInterval(30), lastError: "503 busy",
            rejection: OutboxRejection(status: nil, message: "unreadable"),
            lease: Conformance.lease(Conformance.peerA, for: 45), account: "ann-é")
        // When
        let replaced = try await storage.transaction { tx in try tx.replaceOutbox(full) }
        // Then
        #expect(replaced)
        #expect(try await storage.outbox(OutboxQuery(selection: .all)) == [full])
        let inside = try await storage.transaction { tx in try tx.outboxEntry(sequence: sequence) }
        #expect(inside == full)
    }

    @Test(
        "an entry keeps the account it was recorded under; a write folds only into its own account's entry",
        arguments: StorageKind.allCases)
    func outboxAccount(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: ann's create of a (the entity's first entry), an update of b under no account
        // When: ann edits a again, then bob does
        try await storage.transaction { tx in
            try tx.recordOutbox(
                collection: "messages", entityID: "a", operation: .create, payload: ["text": "1"], account: "ann")
            try tx.recordOutbox(collection: "messages", entityID: "b", operation: .update, payload: ["text": "2"])
            try tx.recordOutbox(
                collection: "messages", entityID: "a", operation: .update, payload: ["text": "3"], account: "ann")
            try tx.recordOutbox(
                collection: "messages", entityID: "a", operation: .update, payload: ["text": "4"], account: "bob")
        }
        // Then: ann's edit folded into her create; bob's is an entry of its own, after it
        let entries = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(entries.map(\.entityID) == ["a", "b", "a"])
        #expect(entries.map(\.account) == ["ann", nil, "bob"])
        #expect(entries.map(\.payload) == [["text": "3"], ["text": "2"], ["text": "4"]])
    }

    @Test("outbox(_:) selects by state, collections, entity, after and limit", arguments: StorageKind.allCases)
    func outboxQueries(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: five entries; the fourth refused.
        let s = try await Conformance.append(
            [
                Conformance.entry("a"), Conformance.entry("b", .create), Conformance.entry("a", collection: "notes"),
                Conformance.entry("a", .patch), Conformance.entry("c", .delete),
            ], to: storage)
        try await storage.transaction { tx in
            var entry = try #require(try tx.outboxEntry(sequence: s[3]))
            entry.rejection = Conformance.rejection
            #expect(try tx.replaceOutbox(entry))
        }
        func sequences(_ query: OutboxQuery) async throws -> [Int64] {
            try await storage.outbox(query).map(\.sequence)
        }
        // When / Then
        #expect(try await sequences(OutboxQuery()) == [s[0], s[1], s[2], s[4]])
        #expect(try await sequences(OutboxQuery(selection: .rejected)) == [s[3]])
        #expect(try await sequences(OutboxQuery(selection: .all)) == s)
        #expect(try await sequences(OutboxQuery(collections: ["notes"])) == [s[2]])
        #expect(try await sequences(OutboxQuery(collections: ["messages", "notes"])) == [s[0], s[1], s[2], s[4]])
        #expect(try await sequences(OutboxQuery(collections: [])) == [])
        #expect(try await sequences(OutboxQuery(entityID: "a", selection: .all)) == [s[0], s[2], s[3]])
        #expect(try await sequences(OutboxQuery(collections: ["messages"], entityID: "a")) == [s[0]])
        #expect(try await sequences(OutboxQuery(after: s[1])) == [s[2], s[4]])
        #expect(try await sequences(OutboxQuery(limit: 2)) == [s[0], s[1]])
        #expect(try await sequences(OutboxQuery(selection: .all, after: s[0], limit: 3)) == [s[1], s[2], s[3]])
        #expect(try await sequences(OutboxQuery(limit: 0)) == [])
        #expect(try await storage.outboxCount(OutboxQuery(limit: 1)) == 4, "the count ignores the limit")
        #expect(try await storage.outboxCount(OutboxQuery(selection: .rejected)) == 1)
        #expect(try await storage.outboxCount(OutboxQuery(collections: ["notes"], selection: .all)) == 1)
        #expect(try await storage.outboxCount(OutboxQuery(entityID: "a", after: s[0])) == 1)
    }

    @Test("recordOutbox folds writes by the coalescing rules", arguments: StorageKind.allCases)
    func outboxCoalescing(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given / When
        let (folded, dropped) = try await storage.transaction { tx -> (OutboxEntry?, OutboxEntry?) in
            let first = try tx.recordOutbox(
                collection: "messages", entityID: "u", operation: .update, payload: ["n": 1])
            let folded = try tx.recordOutbox(
                collection: "messages", entityID: "u", operation: .update, payload: ["n": 2])
            #expect(folded?.sequence == first?.sequence && folded?.idempotencyKey == first?.idempotencyKey)
            try tx.recordOutbox(collection: "messages", entityID: "c", operation: .create, payload: ["n": 1])
            let dropped = try tx.recordOutbox(collection: "messages", entityID: "c", operation: .delete, payload: nil)
            try tx.recordOutbox(collection: "messages", entityID: "p", operation: .create, payload: ["n": 1, "m": 1])
            try tx.recordOutbox(collection: "messages", entityID: "p", operation: .patch, payload: ["m": 2])
            return (folded, dropped)
        }
        try await storage.transaction { tx in
            // An attempted entry, a refused one, and one with a key from a direct send are not folded into.
            let attempted = try #require(
                try tx.recordOutbox(collection: "messages", entityID: "t", operation: .update, payload: ["n": 1]))
            _ = try tx.markOutboxAttempted(sequences: [attempted.sequence])
            try tx.recordOutbox(collection: "messages", entityID: "t", operation: .update, payload: ["n": 2])
            var refused = try #require(
                try tx.recordOutbox(collection: "messages", entityID: "r", operation: .update, payload: ["n": 1]))
            refused.rejection = Conformance.rejection
            try tx.replaceOutbox(refused)
            try tx.recordOutbox(collection: "messages", entityID: "r", operation: .update, payload: ["n": 2])
            try tx.recordOutbox(collection: "messages", entityID: "k", operation: .update, payload: ["n": 1])
            try tx.recordOutbox(
                collection: "messages", entityID: "k", operation: .update, payload: ["n": 2], idempotencyKey: "key-1")
        }
        // Then
        #expect(dropped == nil)
        let all = try await storage.outbox(OutboxQuery(selection: .all))
        func entries(_ id: String) -> [OutboxEntry] { all.filter { $0.entityID == id } }
        let foldedEntry = try #require(folded)
        #expect(entries("u") == [foldedEntry])
        #expect(entries("u").map(\.payload) == [["n": 2]])
        #expect(entries("c") == [], "create then delete leaves nothing to send")
        #expect(entries("p").map(\.operation) == [.create])
        #expect(entries("p").map(\.payload) == [["n": 1, "m": 2]])
        #expect(entries("t").map(\.attempts) == [1, 0])
        #expect(entries("t").map(\.payload) == [["n": 1], ["n": 2]])
        #expect(entries("r").map(\.isRejected) == [true, false])
        #expect(entries("k").map(\.attempts) == [0, 1])
        #expect(entries("k").last?.idempotencyKey == "key-1")
    }

    // MARK: - Leases

    @Test(
        "claimOutbox takes free entries once and skips live leases until they expire", arguments: StorageKind.allCases)
    func claims(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let now = Conformance.now
        // Given: four entries, the last refused.
        let s = try await Conformance.append((1...4).map { Conformance.entry("e\($0)") }, to: storage)
        try await storage.transaction { tx in
            var entry = try #require(try tx.outboxEntry(sequence: s[3]))
            entry.rejection = Conformance.rejection
            try tx.replaceOutbox(entry)
        }
        let leaseA = Conformance.lease(Conformance.peerA, for: 60)
        let leaseB = Conformance.lease(Conformance.peerB, for: 60)
        // When: A claims two free entries (listed with a refused one, a missing one and a repeat).
        let byA = try await storage.transaction { tx in
            try tx.claimOutbox(sequences: [s[1], s[0], s[3], s[3] + 1_000, s[1]], lease: leaseA, now: now)
        }
        // Then
        #expect(byA.map(\.sequence) == [s[1], s[0]], "in the order given, once each")
        #expect(byA.map(\.attempts) == [1, 1] && byA.allSatisfy { $0.lease == leaseA })
        // When: B asks for all three while A's lease holds, then just after it lapses.
        let early = try await storage.transaction { tx in
            try tx.claimOutbox(sequences: [s[0], s[1], s[2]], lease: leaseB, now: now.addingTimeInterval(59))
        }
        let late = try await storage.transaction { tx in
            try tx.claimOutbox(
                sequences: [s[0]], lease: Conformance.lease(Conformance.peerB, for: 120),
                now: now.addingTimeInterval(60))
        }
        // Then
        #expect(early.map(\.sequence) == [s[2]])
        #expect(late.map(\.sequence) == [s[0]])
        #expect(late.first?.attempts == 2)
        #expect(late.first?.lease == Conformance.lease(Conformance.peerB, for: 120))
        let stored = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(stored.map(\.lease) == [late.first?.lease, leaseA, leaseB, nil])
        #expect(stored.map(\.attempts) == [2, 1, 1, 0])
    }

    @Test(
        "releaseOutbox frees only the owner's leases; renew keeps what is still held", arguments: StorageKind.allCases)
    func releaseAndRenew(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let now = Conformance.now
        // Given: A holds the first two entries, B the third.
        let s = try await Conformance.append((1...3).map { Conformance.entry("e\($0)") }, to: storage)
        let leaseB = Conformance.lease(Conformance.peerB, for: 60)
        try await storage.transaction { tx in
            let a = try tx.claimOutbox(
                sequences: [s[0], s[1]], lease: Conformance.lease(Conformance.peerA, for: 60), now: now)
            let b = try tx.claimOutbox(sequences: [s[2]], lease: leaseB, now: now)
            #expect(a.count == 2 && b.count == 1)
        }
        // When
        let (released, again, renewed, lapsed) = try await storage.transaction { tx in
            let renewed = try tx.renewOutboxLeases(
                sequences: [s[2], s[0]], owner: Conformance.peerB, expiry: now.addingTimeInterval(120))
            let released = try tx.releaseOutbox(sequences: s, owner: Conformance.peerA)
            let again = try tx.releaseOutbox(sequences: s, owner: Conformance.peerA)
            let lapsed = try tx.renewOutboxLeases(
                sequences: s, owner: Conformance.peerA, expiry: now.addingTimeInterval(120))
            return (released, again, renewed, lapsed)
        }
        // Then
        #expect(released == 2)
        #expect(again == 0)
        #expect(renewed == [s[2]])
        #expect(lapsed == [])
        let stored = try await storage.outbox(OutboxQuery())
        #expect(stored.map(\.lease) == [nil, nil, Conformance.lease(Conformance.peerB, for: 120)])
        #expect(stored.map(\.attempts) == [1, 1, 1], "releasing does not undo the attempt")
    }

    @Test(
        "heldOutboxLeases names the entries the owner holds; leaseTime is the store's clock and never runs back",
        arguments: StorageKind.allCases)
    func heldLeasesAndLeaseTime(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        let now = Conformance.now
        // Given: A holds the first two entries (the second's lease lapsed, not taken), B the third.
        let s = try await Conformance.append((1...4).map { Conformance.entry("e\($0)") }, to: storage)
        try await storage.transaction { tx in
            _ = try tx.claimOutbox(sequences: [s[0]], lease: Conformance.lease(Conformance.peerA, for: 60), now: now)
            _ = try tx.claimOutbox(sequences: [s[1]], lease: Conformance.lease(Conformance.peerA, for: -1), now: now)
            _ = try tx.claimOutbox(sequences: [s[2]], lease: Conformance.lease(Conformance.peerB, for: 60), now: now)
        }
        // When
        let (held, times) = try await storage.transaction { tx in
            (
                try tx.heldOutboxLeases(sequences: s + [s[3] + 1_000], owner: Conformance.peerA),
                try (0..<3).map { _ in try tx.leaseTime() }
            )
        }
        let later = try await storage.transaction { tx in try tx.leaseTime() }
        // Then
        #expect(held == [s[0], s[1]])
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 } && times.last.map { $0 <= later } == true)
        #expect(
            abs(later.timeIntervalSinceNow) < 5 * Double(TestTimeScale.factor),
            "the store's clock, on this host: \(later)")
    }

    @Test("markOutboxAttempted counts once each, skips refused and missing entries", arguments: StorageKind.allCases)
    func markAttempted(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await kind.make(in: directory)
        // Given: three entries, the last refused.
        let s = try await Conformance.append((1...3).map { Conformance.entry("e\($0)") }, to: storage)
        // When
        let marked = try await storage.transaction { tx in
            var entry = try #require(try tx.outboxEntry(sequence: s[2]))
            entry.rejection = Conformance.rejection
            try tx.replaceOutbox(entry)
            return try tx.markOutboxAttempted(sequences: [s[1], s[0], s[2], s[1], s[2] + 1_000])
        }
        // Then
        #expect(marked.map(\.sequence) == [s[1], s[0]])
        #expect(marked.map(\.attempts) == [1, 1])
        let stored = try await storage.outbox(OutboxQuery(selection: .all))
        #expect(stored.map(\.attempts) == [1, 1, 0])
    }
}
