import Depot
import DepotTesting
import Foundation

/// Judges a soak round: from the journal (what the program asked for and which calls succeeded),
/// what the server and the local store may hold once the outbox has been forwarded with no faults.
///
/// For each entity the model keeps the set of states it may be in (a value, or absent). A write
/// that succeeded (whichever side answered) fixes the state; one that failed, or was cut short by
/// a kill, may or may not have happened, so it only adds its state to the set. Then:
/// - at most once: the server applied no more writes to an entity than the program began;
/// - nothing lost: the server's object is in the entity's set, and no object exists that the
///   program did not create;
/// - in step: the local store holds exactly the server's objects, all synced, and the outbox is
///   empty with nothing refused; an entity whose last write failed may hold any synced state it
///   may be in (the program was told the write failed, so its copy may be stale until a pull).
public struct SoakModel: Sendable {
    /// What one entity may hold: values, and nil for absent.
    private var possible: [String: Set<String?>] = [:]
    /// Writes begun per entity.
    private var begun: [String: Int] = [:]
    /// Entities whose last write failed or was cut short: the program was not told it took, so
    /// its local copy may be stale (a later pull refreshes it) as long as it is a state it may be in.
    private var uncertain: Set<String> = []
    /// Operations begun, by index, until they end.
    private var open: [Int: SoakOperation] = [:]
    /// Journal lines read.
    public private(set) var operations = 0
    /// Operations that failed.
    public private(set) var failures = 0

    /// An empty model.
    public init() {}

    /// Reads one journal line (`OP`, `OK` or `ERR`); other lines are ignored.
    public mutating func read(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
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

        /// Makes an outcome.
        public init(
            serverObjects: [JSONObject], applied: [StubAppliedWrite], localRecords: [StoredRecord],
            outbox: [OutboxEntry]
        ) {
            self.serverObjects = serverObjects
            self.applied = applied
            self.localRecords = localRecords
            self.outbox = outbox
        }
    }

    /// Every way `outcome` breaks the model; empty when it holds.
    public func violations(of outcome: Outcome) -> [String] {
        var problems: [String] = []
        for entry in outcome.outbox {
            let why = entry.rejection.map { "refused: \($0.message)" } ?? "still pending"
            problems.append("outbox entry \(entry.sequence) (\(entry.operation) \(entry.entityID)) \(why)")
        }
        var appliedPerID: [String: Int] = [:]
        for write in outcome.applied { if let id = write.id { appliedPerID[id, default: 0] += 1 } }
        for (id, count) in appliedPerID.sorted(by: { $0.key < $1.key }) where count > begun[id, default: 0] {
            problems.append("\(id): the server applied \(count) writes, the program began \(begun[id, default: 0])")
        }
        var server: [String: String] = [:]
        for object in outcome.serverObjects {
            guard let id = object["id"]?.stringValue else {
                problems.append("a server object without a string id: \(object)")
                continue
            }
            server[id] = object["value"]?.stringValue ?? "<no value>"
            if possible[id] == nil { problems.append("\(id): on the server, never created by the program") }
        }
        for (id, states) in possible.sorted(by: { $0.key < $1.key }) where !states.contains(server[id]) {
            let allowed = states.map { $0 ?? "absent" }.sorted().joined(separator: " or ")
            problems.append("\(id): the server holds \(server[id] ?? "nothing"), the model allows \(allowed)")
        }
        var local: [String: StoredRecord] = [:]
        for record in outcome.localRecords where record.collection == "items" { local[record.id] = record }
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
        }
        for id in local.keys.sorted() where server[id] == nil && !uncertain.contains(id) {
            problems.append("\(id): stored locally (\(local[id]!.syncState)), not on the server")
        }
        return problems
    }
}
