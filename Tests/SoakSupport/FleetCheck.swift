import Depot
import DepotTesting

/// What the fleet crash test found: writes lost, writes applied twice, an entity's writes applied
/// out of the order they were queued in, and anything else amiss. Each applied write is told apart
/// by the ``FleetItem/revision`` its request carried (every write stamps a new one), so the check
/// needs no record of which process sent what.
public struct FleetCheck: Sendable {
    /// Writes the server never applied, or entities whose server version is not the expected one.
    public private(set) var lost: [String] = []
    /// Writes the server applied more than once, or entities it holds twice.
    public private(set) var appliedTwice: [String] = []
    /// Writes of one entity applied in another order than they were queued in.
    public private(set) var outOfOrder: [String] = []
    /// Anything else: entries left in the outbox, a local store that disagrees, writes the check
    /// cannot attribute.
    public private(set) var problems: [String] = []
    /// How many writes the server applied.
    public private(set) var appliedCount = 0
    /// The highest revision a batch applied, by entity.
    private var batched: [String: Int] = [:]

    /// Whether the run passed.
    public var passed: Bool { lost.isEmpty && appliedTwice.isEmpty && outOfOrder.isEmpty && problems.isEmpty }

    /// Checks `outcome` against what `workload` wrote.
    public init(_ outcome: FleetOutcome, workload: FleetWorkload) {
        appliedCount = outcome.applied.count
        let appliedKeys = checkApplied(outcome, workload)
        checkQueued(outcome.queued, appliedKeys, workload)
        checkServer(outcome.server, workload.expected)
        checkLocal(outcome, workload)
    }

    /// The findings, up to `limit` of each kind, one a line.
    public func findings(limit: Int = 10) -> [String] {
        lost.prefix(limit).map { "lost: \($0)" } + appliedTwice.prefix(limit).map { "applied twice: \($0)" }
            + outOfOrder.prefix(limit).map { "out of order: \($0)" }
            + problems.prefix(limit).map { "problem: \($0)" }
    }

    /// Walks the applied writes in apply order: each is attributed to an entity by its revision
    /// (a delete, which carries none, by its id), applied at most once, and after every earlier
    /// write of its entity. Returns the keys that were applied.
    private mutating func checkApplied(_ outcome: FleetOutcome, _ workload: FleetWorkload) -> Set<String> {
        var bodies: [String: JSONObject] = [:]
        var batchBodies: [String: [String: JSONObject]] = [:]  // a batch's key → id → the object sent
        for request in outcome.requests where request.method != "DELETE" {
            guard let key = request.header("Idempotency-Key") else { continue }
            switch request.json {
            case .object(let body)? where bodies[key] == nil: bodies[key] = body
            case .array(let elements)? where batchBodies[key] == nil:
                var byID: [String: JSONObject] = [:]
                for case .object(let object) in elements {
                    if case .string(let id)? = object["id"] { byID[id] = object }
                }
                batchBodies[key] = byID
            default: break
            }
        }
        var serverIDs: [String: String] = [:]  // "tickets/<server id>" → the entity's key
        var applied: [Int: Int] = [:]  // revision → the apply sequence
        var last: [String: (revision: Int, sequence: Int)] = [:]  // entity → its last applied write
        var keys = Set<String>()
        for write in outcome.applied.sorted(by: { $0.sequence < $1.sequence }) {
            let what = "\(write.method) \(write.resource)/\(write.id ?? "?") (#\(write.sequence))"
            guard let key = write.idempotencyKey else {
                problems.append("\(what) came without an Idempotency-Key")
                continue
            }
            keys.insert(key)
            if write.method == "DELETE" {
                let entity =
                    write.resource == FleetItems.serverIDs
                    ? serverIDs["\(write.resource)/\(write.id ?? "")"] : "\(write.resource)/\(write.id ?? "")"
                if entity == nil { problems.append("\(what) deleted an object no create made") }
                continue
            }
            guard let body = bodies[key] ?? batchBodies[key]?[write.id ?? ""],
                case .integer(let number)? = body["revision"],
                let revision = Int(exactly: number),
                let entity = workload.revisions[revision]
            else {
                problems.append("\(what): its request carried no revision this run wrote")
                continue
            }
            if write.method == "POST", write.resource == FleetItems.serverIDs, let id = write.id {
                serverIDs["\(write.resource)/\(id)"] = entity
            }
            guard FleetWorkload.collection(of: entity) == write.resource else {
                problems.append("\(what) carried revision \(revision), written to \(entity)")
                continue
            }
            if let first = applied[revision] {
                appliedTwice.append("\(entity) revision \(revision): applied as #\(first) and again as \(what)")
            }
            applied[revision] = write.sequence
            if batchBodies[key] != nil { batched[entity] = max(batched[entity] ?? revision, revision) }
            let ordered = workload.orderedEntities[revision] ?? entity
            if let previous = last[ordered], previous.revision >= revision {
                outOfOrder.append(
                    "\(entity): revision \(revision) applied as \(what), after revision \(previous.revision)"
                        + " (#\(previous.sequence)), which was queued later")
            }
            last[ordered] = (revision, write.sequence)
        }
        return keys
    }

    /// Every entry queued before forwarding began was applied, unless a later delete cancelled it
    /// or a batch carried it: a batch sends an entity's record as it is, once for all its pending
    /// entries (a revision at least the entry's; any, for a delete the batch's create replaced).
    private mutating func checkQueued(_ queued: [OutboxEntry], _ appliedKeys: Set<String>, _ workload: FleetWorkload) {
        for entry in queued where !appliedKeys.contains(entry.idempotencyKey) {
            let entity =
                workload.temporaryIDs[entry.entityID] ?? FleetWorkload.key(entry.collection, entry.entityID)
            if let carried = batched[entity] {
                guard case .integer(let number)? = entry.payload?["revision"], let revision = Int(exactly: number)
                else { continue }
                if carried >= revision { continue }
            }
            if !workload.deletedSinceMark.contains(entity) {
                lost.append("\(Self.describe(entry)) (\(entity)), queued before forwarding, was never applied")
            }
        }
    }

    /// The server's objects against the expected ones, matched by name.
    private mutating func checkServer(_ server: [String: [JSONObject]], _ expected: [String: FleetItem]) {
        var seen: [String: FleetItem] = [:]
        for (collection, objects) in server.sorted(by: { $0.key < $1.key }) {
            for object in objects {
                guard let item = try? JSONMapping.entity(FleetItem.self, from: .object(object)) else {
                    problems.append("\(collection) holds an object that is not an item: \(JSON.object(object))")
                    continue
                }
                let key = FleetWorkload.key(collection, item.name)
                if seen[key] != nil { appliedTwice.append("the server holds \(key) twice") }
                seen[key] = item
            }
        }
        for (key, item) in expected.sorted(by: { $0.key < $1.key }) where !Self.same(seen[key], item) {
            lost.append("\(key) is \(seen[key].map { "\($0)" } ?? "missing") on the server, expected \(item)")
        }
        for key in seen.keys.sorted() where expected[key] == nil {
            lost.append("\(key) is still on the server, though it was deleted")
        }
    }

    /// The shared store at the end: an empty outbox, every record synced and as expected.
    private mutating func checkLocal(_ outcome: FleetOutcome, _ workload: FleetWorkload) {
        let expected = workload.expected
        for entry in outcome.outboxLeft {
            problems.append("\(Self.describe(entry)) is still in the outbox\(entry.isRejected ? ", refused" : "")")
        }
        var names = Set<String>()
        for record in outcome.local {
            let item = try? JSONMapping.entity(FleetItem.self, from: .object(record.object))
            if let item, !workload.owns(name: item.name) { continue }  // an earlier run's, in a lasting store
            let key = item.map { FleetWorkload.key(record.collection, $0.name) }
            if let key { names.insert(key) }
            guard record.syncState == .synced, let key, let wanted = expected[key], Self.same(item, wanted) else {
                problems.append(
                    "the local record \(record.collection)/\(record.id) is \(record.syncState), "
                        + "\(item.map { "\($0)" } ?? "unreadable"), expected \(key.flatMap { expected[$0] }.map { "\($0)" } ?? "nothing")"
                )
                continue
            }
        }
        for key in expected.keys.sorted() where !names.contains(key) { problems.append("the local store lost \(key)") }
    }

    /// Whether `item` is `expected` but for the id (a ticket's is the server's).
    static func same(_ item: FleetItem?, _ expected: FleetItem) -> Bool {
        guard var item else { return false }
        if item.id != expected.id, !expected.id.hasPrefix("tmp-") { return false }
        item.id = expected.id
        return item == expected
    }

    /// `"patch i-3 (entry 12, key 1F2E…, attempts 1)"`.
    static func describe(_ entry: OutboxEntry) -> String {
        "\(entry.operation) \(entry.entityID) (entry \(entry.sequence), key \(entry.idempotencyKey.prefix(8))…,"
            + " attempts \(entry.attempts))"
    }
}
