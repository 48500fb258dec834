import Depot
import DepotTesting
import Foundation

/// Judges a soak round: from the journal (what the program asked for and which calls succeeded),
/// what the server and the local store may hold once the outbox has been forwarded with no faults.
///
/// For each entity the model keeps the set of states it may be in (a value, or absent). A write
/// that succeeded (whichever side answered) fixes the state; one that failed, or was cut short by
/// a kill, may or may not have happened, so it only adds its state to the set. Then:
/// - at most once: the server applied no more writes to an entity than the program began, and
///   each `Idempotency-Key` once; when the server ignores keys (``SoakModes/ignoresKeys``), each
///   key at most once plus once per answer lost: the more of the answers a fault lost
///   (``SoakFaults/Plan/lostAnswers(_:)``) and the attempts the client journalled `UNANSWERED`
///   (a timeout or a dropped connection, whatever the server did), plus once when the program was killed (a send whose answer died with it is sent again);
/// - nothing lost: the server's object is in the entity's set, and no object exists that the
///   program did not create;
/// - in step: the local store holds exactly the server's objects, all synced, and the outbox is
///   empty with nothing refused; an entity whose last write failed may hold any synced state it
///   may be in (the program was told the write failed, so its copy may be stale until a pull);
/// - when the server assigns ids (``SoakModes/assignsIDs``), server objects and local records are
///   matched to the program's entities by value (each write's value is unique), and the local
///   record must sit under the server object's id: the id the client adopted;
/// - no hang: every `HANG` line of the journal is a violation.
public struct SoakModel: Sendable {
    /// The round's shapes.
    public let modes: SoakModes
    /// What one entity may hold: values, and nil for absent.
    var possible: [String: Set<String?>] = [:]
    /// Writes begun per entity.
    var begun: [String: Int] = [:]
    /// Entities whose last write failed or was cut short: the program was not told it took, so
    /// its local copy may be stale (a later pull refreshes it) as long as it is a state it may be in.
    var uncertain: Set<String> = []
    /// The entity each value was written to.
    var owners: [String: String] = [:]
    /// Operations begun, by index, until they end.
    private var open: [Int: SoakOperation] = [:]
    /// `HANG` lines: stops that did not return.
    private var hangs: [String] = []
    /// Journal lines read.
    public private(set) var operations = 0
    /// Operations that failed.
    public private(set) var failures = 0
    /// Forwarder stop/start cycles.
    public private(set) var restarts = 0
    /// Per `Idempotency-Key`, the attempts the client journalled `UNANSWERED`: it got no answer.
    public private(set) var unanswered: [String: Int] = [:]

    /// An empty model for a round with `modes` (classic by default).
    public init(modes: SoakModes = SoakModes()) { self.modes = modes }

    /// Reads one journal line (`OP`, `OK`, `ERR`, `RESTART`, `UNANSWERED` or `HANG`); other lines are
    /// ignored.
    public mutating func read(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        if parts.first == "HANG" { hangs.append(parts.dropFirst().joined(separator: " ")) }
        if parts.first == "RESTART" { restarts += 1 }
        if parts.first == "UNANSWERED", parts.count == 2 {
            unanswered[parts[1], default: 0] += 1
            return
        }
        guard parts.count >= 3, let index = Int(parts[1]) else { return }
        switch parts[0] {
        case "OP":
            guard let operation = SoakOperation(words: parts[2]) else { return }
            operations += 1
            open[index] = operation
            if let id = operation.writtenID {
                begun[id, default: 0] += 1
                uncertain.insert(id)
                // Until it ends, the write may or may not have happened.
                possible[id, default: [nil]].insert(operation.writtenValue)
                if let value = operation.writtenValue { owners[value] = id }
            }
        case "OK":
            guard let operation = open.removeValue(forKey: index), let id = operation.writtenID else { return }
            possible[id] = [operation.writtenValue]
            uncertain.remove(id)
        case "ERR":
            failures += 1
            open[index] = nil
        default:
            return
        }
    }

    /// What the server and the local store hold after the round.
    public struct Outcome: Sendable {
        /// The server's objects.
        public var serverObjects: [JSONObject]
        /// Writes the server applied.
        public var applied: [StubAppliedWrite]
        /// The local records, tombstones included.
        public var localRecords: [StoredRecord]
        /// Outbox entries left, refused ones included.
        public var outbox: [OutboxEntry]
        /// Per `Idempotency-Key`, the sends a fault applied and whose answer it lost.
        public var lostAnswers: [String: Int]
        /// Whether the program was killed.
        public var killed: Bool

        /// Makes an outcome.
        public init(
            serverObjects: [JSONObject], applied: [StubAppliedWrite], localRecords: [StoredRecord],
            outbox: [OutboxEntry], lostAnswers: [String: Int] = [:], killed: Bool = false
        ) {
            self.serverObjects = serverObjects
            self.applied = applied
            self.localRecords = localRecords
            self.outbox = outbox
            self.lostAnswers = lostAnswers
            self.killed = killed
        }
    }

    /// Every way `outcome` breaks the model; empty when it holds.
    public func violations(of outcome: Outcome) -> [String] {
        var problems = hangs.map { "HANG " + $0 }
        for entry in outcome.outbox {
            let why = entry.rejection.map { "refused: \($0.message)" } ?? "still pending"
            problems.append("outbox entry \(entry.sequence) (\(entry.operation) \(entry.entityID)) \(why)")
        }
        problems += keyViolations(of: outcome)
        if !modes.assignsIDs, !modes.ignoresKeys {
            var appliedPerID: [String: Int] = [:]
            for write in outcome.applied { if let id = write.id { appliedPerID[id, default: 0] += 1 } }
            for (id, count) in appliedPerID.sorted(by: { $0.key < $1.key }) where count > begun[id, default: 0] {
                problems.append(
                    "APPLIED TWICE \(id): the server applied \(count) writes, the program began \(begun[id, default: 0])"
                )
            }
        }
        let view = self.view(of: outcome)
        problems += view.problems
        let (server, local) = (view.server, view.local)
        for (id, states) in possible.sorted(by: { $0.key < $1.key }) where !states.contains(server[id]) {
            let allowed = states.map { $0 ?? "absent" }.sorted().joined(separator: " or ")
            problems.append("LOST \(id): the server holds \(server[id] ?? "nothing"), the model allows \(allowed)")
        }
        for (id, value) in server.sorted(by: { $0.key < $1.key }) {
            if uncertain.contains(id), possible[id, default: []].contains(local[id]?.object["value"]?.stringValue),
                local[id].map({ $0.syncState == .synced }) ?? true
            {
                continue
            }
            guard let record = local[id] else {
                problems.append("\(id): on the server (\(value)), missing locally")
                continue
            }
            if record.syncState != .synced || record.object["value"]?.stringValue != value {
                problems.append(
                    "\(id): local \(record.object["value"]?.stringValue ?? "-") \(record.syncState), server \(value)")
            }
            if let serverID = view.serverIDs[id], record.id != serverID {
                problems.append("\(id): the local record is under \(record.id), the server's object under \(serverID)")
            }
        }
        for id in local.keys.sorted() where server[id] == nil && !uncertain.contains(id) {
            problems.append("\(id): stored locally as \(local[id]!.id) (\(local[id]!.syncState)), not on the server")
        }
        return problems
    }

    /// The most times the server may apply a write sent under `key`.
    func allowedApplies(_ key: String, in outcome: Outcome) -> Int {
        guard modes.ignoresKeys else { return 1 }
        let lost = max(outcome.lostAnswers[key, default: 0], unanswered[key, default: 0])
        return 1 + lost + (outcome.killed ? 1 : 0)
    }

    /// Keys applied more often than ``allowedApplies(_:in:)``.
    func keyViolations(of outcome: Outcome) -> [String] {
        var applied: [String: [StubAppliedWrite]] = [:]
        for write in outcome.applied { if let key = write.idempotencyKey { applied[key, default: []].append(write) } }
        var problems: [String] = []
        for (key, writes) in applied.sorted(by: { $0.key < $1.key }) {
            let allowed = allowedApplies(key, in: outcome)
            guard writes.count > allowed else { continue }
            let what = writes.map { "\($0.method) \($0.id ?? "-") #\($0.sequence)" }.joined(separator: ", ")
            problems.append(
                "APPLIED TWICE key \(key): applied \(writes.count) times (\(what)), at most \(allowed) allowed "
                    + "(\(outcome.lostAnswers[key, default: 0]) answers lost to faults, "
                    + "\(unanswered[key, default: 0]) attempts unanswered\(outcome.killed ? ", killed" : ""))")
        }
        return problems
    }

    /// Writes applied beyond once per key: the duplicates a server that ignores keys took.
    public func extraApplies(in outcome: Outcome) -> Int {
        var counts: [String: Int] = [:]
        for write in outcome.applied { if let key = write.idempotencyKey { counts[key, default: 0] += 1 } }
        return counts.values.reduce(0) { $0 + max($1 - 1, 0) }
    }
}
