import Depot
import DepotTesting

/// The outbox at the three moments of a round the parent reads it.
struct OutboxSnapshots: Sendable {
    /// Before the first child starts.
    var beforeForwarding: [OutboxEntry] = []
    /// After the kill, before the parent's further writes.
    var afterKill: [OutboxEntry] = []
    /// Before the restarted child starts.
    var beforeRestart: [OutboxEntry] = []

    /// The entries delivered before the kill: gone from the outbox by then. The engine removes an
    /// entry only in the transaction that stores the server's answer.
    var deliveredBeforeKill: [OutboxEntry] {
        let left = Set(afterKill.map(\.sequence))
        return beforeForwarding.filter { !left.contains($0.sequence) }
    }

    /// The entries the parent's further writes cancelled (a create never sent, then a delete):
    /// the server must never have seen them.
    var droppedByCoalescing: [OutboxEntry] {
        let left = Set(beforeRestart.map(\.sequence))
        return afterKill.filter { !left.contains($0.sequence) }
    }
}

/// What one round's check found: writes lost, writes applied twice, and anything else amiss.
struct RoundCheck: Sendable {
    /// Writes the server never applied, or notes whose server version is not the expected one.
    var lost: [String] = []
    /// Entries the server applied more than once (under any key they had), or notes it holds twice.
    var appliedTwice: [String] = []
    /// Anything else: entries left in the outbox, a local store that disagrees, unknown keys.
    var problems: [String] = []
    /// Deletes delivered without being applied (answered 404): allowed, the final state decides.
    var deletesNotApplied = 0

    /// A check of nothing, which passes.
    init() {}

    /// Whether the round passed.
    var passed: Bool { lost.isEmpty && appliedTwice.isEmpty && problems.isEmpty }

    /// Checks one round: every entry the outbox held was applied exactly once (a cancelled one
    /// never), the server holds exactly the expected notes, and the outbox and local store are
    /// settled.
    ///
    /// - Parameters:
    ///   - snapshots: the outbox as the parent read it during the round.
    ///   - applied: the server's applied writes during the round.
    ///   - server: the objects the server holds now.
    ///   - local: every record of the local store now, tombstones included.
    ///   - outboxLeft: the outbox now.
    ///   - expected: what the server must hold.
    init(
        snapshots: OutboxSnapshots, applied: [StubAppliedWrite], server: [JSONObject], local: [StoredRecord],
        outboxLeft: [OutboxEntry], expected: [String: Note]
    ) {
        checkKeys(snapshots, applied)
        checkServer(server, expected)
        checkLocal(local, outboxLeft, expected)
    }

    /// Applied-write accounting by Idempotency-Key, per entry: an entry's key may change (a
    /// conflict resent under a new key), so the writes of all the keys an entry had are counted
    /// together, and a resend under a key made anew would show as a second write of the entry.
    private mutating func checkKeys(_ snapshots: OutboxSnapshots, _ applied: [StubAppliedWrite]) {
        let all = snapshots.beforeForwarding + snapshots.afterKill + snapshots.beforeRestart
        let entries = Dictionary(all.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        let sequences = Dictionary(
            all.map { ($0.idempotencyKey, $0.sequence) }, uniquingKeysWith: { first, _ in first })
        var counts: [Int64: Int] = [:]
        for write in applied {
            guard let key = write.idempotencyKey else {
                problems.append("the server applied \(write.method) \(write.id ?? "?") without an Idempotency-Key")
                continue
            }
            guard let sequence = sequences[key] else {
                problems.append(
                    "the server applied \(write.method) \(write.id ?? "?") under key \(key), which no entry had")
                continue
            }
            counts[sequence, default: 0] += 1
        }
        for (sequence, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 {
            appliedTwice.append("\(entries[sequence].map(Self.describe) ?? "entry \(sequence)") applied \(count) times")
        }
        for entry in snapshots.deliveredBeforeKill + snapshots.beforeRestart where counts[entry.sequence] == nil {
            if entry.operation == .delete {
                deletesNotApplied += 1
            } else {
                lost.append("\(Self.describe(entry)) was never applied")
            }
        }
        for entry in snapshots.droppedByCoalescing where counts[entry.sequence] != nil {
            problems.append(
                "\(Self.describe(entry)) left the outbox undelivered (cancelled by a later write), yet the server applied it"
            )
        }
    }

    /// The server's notes against the expected ones.
    private mutating func checkServer(_ server: [JSONObject], _ expected: [String: Note]) {
        var seen: [String: Note] = [:]
        for object in server {
            guard let note = try? JSONMapping.entity(Note.self, from: .object(object)) else {
                problems.append("the server holds an object that is not a note: \(JSON.object(object))")
                continue
            }
            if seen[note.id] != nil { appliedTwice.append("the server holds \(note.id) twice") }
            seen[note.id] = note
        }
        for (id, note) in expected.sorted(by: { $0.key < $1.key }) where seen[id] != note {
            lost.append("\(id) is \(seen[id].map { "\($0)" } ?? "missing") on the server, expected \(note)")
        }
        for id in seen.keys.sorted() where expected[id] == nil {
            lost.append("\(id) is still on the server, though it was deleted")
        }
    }

    /// The local store and outbox after the restarted child: empty outbox, every record synced.
    private mutating func checkLocal(_ local: [StoredRecord], _ outboxLeft: [OutboxEntry], _ expected: [String: Note]) {
        for entry in outboxLeft {
            problems.append("\(Self.describe(entry)) is still in the outbox\(entry.isRejected ? ", refused" : "")")
        }
        for record in local {
            let note = try? JSONMapping.entity(Note.self, from: .object(record.object))
            if record.syncState != .synced || note == nil || note != expected[record.id] {
                problems.append(
                    "the local record \(record.id) is \(record.syncState), \(note.map { "\($0)" } ?? "unreadable")")
            }
        }
        let ids = Set(local.map(\.id))
        for id in expected.keys.sorted() where !ids.contains(id) { problems.append("the local store lost \(id)") }
    }

    /// `"patch note-3 (key 1F2E…, attempts 1)"`.
    static func describe(_ entry: OutboxEntry) -> String {
        "\(entry.operation) \(entry.entityID) (key \(entry.idempotencyKey.prefix(8))…, attempts \(entry.attempts))"
    }
}
