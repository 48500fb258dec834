import Depot
import Foundation

/// Runs a seeded workload against a repository, one operation at a time, while a started forwarder
/// sends the outbox in the background. Each operation is journalled before it starts
/// (`OP <index> <words>`) and when it ends (`OK <index> <origin>` or `ERR <index> <code>`), so a
/// run killed at any point leaves a journal the model can judge.
///
/// With ``other`` (a `roads` round), each operation goes through one of the two repositories,
/// drawn from the seed, and now and then the forwarder is stopped and started again
/// (`RESTART <index>`; a stop that does not return within ``hangLimit`` is journalled
/// `HANG <index> …`). With ``followsAssignedIDs``, an operation on an entity goes to the id the
/// store adopted for it (the server's, once its create went through), found by the values the
/// program wrote to it.
public struct SoakRunner: Sendable {
    /// The repository the operations go through.
    public let items: SoakItems
    /// The forwarder started for the run.
    public let forwarder: Forwarder
    /// The repository of the other strategy over the same storage; nil for one road.
    public let other: SoakItems?
    /// Whether the server assigns ids, so the program follows each entity to the id it adopted.
    public let followsAssignedIDs: Bool
    /// How long a stop may take before it counts as a hang.
    public static let hangLimit = Duration.seconds(10)

    /// A runner over `items` (and `other`, for several roads), forwarding with `forwarder`.
    public init(items: SoakItems, forwarder: Forwarder, other: SoakItems? = nil, followsAssignedIDs: Bool = false) {
        self.items = items
        self.forwarder = forwarder
        self.other = other
        self.followsAssignedIDs = followsAssignedIDs
    }

    /// Runs `count` operations drawn from `seed`, calling `journal` with each journal line.
    public func run(seed: UInt64, count: Int, journal: @escaping @Sendable (String) -> Void) async {
        var workload = SoakWorkload(seed: seed)
        var roads = SeededGenerator(seed: seed ^ 0x0AD5_0AD5)
        var followed = SoakFollowedIDs()
        for index in 0..<count {
            let operation = workload.next(index: index)
            var repository = items
            if let other {
                if Int.random(in: 0..<100, using: &roads) < 8 { await restartForwarder(index, journal: journal) }
                if Bool.random(using: &roads) { repository = other }
            }
            journal("OP \(index) \(operation.words)")
            followed.began(operation)
            do {
                var sent = operation
                if followsAssignedIDs { sent = try await followed.follow(operation, in: repository.storage) }
                let (origin, id) = try await perform(sent, on: repository)
                if let id, let written = operation.writtenID { followed.adopted[written] = id }
                let moved = id.map { $0 != operation.writtenID ? " as \($0)" : "" } ?? ""
                journal("OK \(index) \(origin)\(moved)")
                workload.record(operation, succeeded: true)
            } catch {
                let code = (error as? DepotError)?.code.description ?? "other"
                journal("ERR \(index) \(code)")
                workload.record(operation, succeeded: false)
            }
        }
    }

    /// Stops the forwarder and starts it again; journals a stop that does not return in time.
    func restartForwarder(_ index: Int, journal: @escaping @Sendable (String) -> Void) async {
        journal("RESTART \(index)")
        let forwarder = self.forwarder
        if !(await Self.returns(within: Self.hangLimit) { await forwarder.stop() }) {
            journal("HANG \(index) forwarder.stop() did not return within \(Self.hangLimit)")
        }
        forwarder.start()
    }

    /// Performs one operation; returns where the answer came from (`remote`, `local`, or `-` for
    /// synchronizations and flushes) and the id of the entity a create, update or patch answered.
    func perform(_ operation: SoakOperation, on items: SoakItems) async throws -> (String, String?) {
        switch operation {
        case .create(let id, let value):
            let answer = try await items.create(SoakItem(id: id, value: value)).value
            return (answer.origin.description, answer.value.id)
        case .update(let id, let value):
            let answer = try await items.update(SoakItem(id: id, value: value)).value
            return (answer.origin.description, answer.value.id)
        case .patch(let id, let value):
            let answer = try await items.patch(SoakItem(id: id, value: value)).value
            return (answer.origin.description, answer.value.id)
        case .delete(let id):
            return (try await items.delete(id: id).value.origin.description, nil)
        case .read(let id):
            return (try await items.read(id).value.origin.description, nil)
        case .readAll:
            return (try await items.readAll().value.origin.description, nil)
        case .synchronize:
            _ = try await items.synchronize().value
            return ("-", nil)
        case .flush:
            _ = try await forwarder.flush().value
            return ("-", nil)
        }
    }

    /// Runs `body` in a task of its own; true when it returned within `limit`, false when `limit`
    /// passed first (the body is left running: a hang is reported, not waited out).
    public static func returns(within limit: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        let waiter = LockedValue<CheckedContinuation<Bool, Never>?>(nil)
        let timer = LockedValue<Task<Void, Never>?>(nil)
        let end: @Sendable (Bool) -> Void = { returned in
            waiter.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: returned)
        }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            timer.withLock {
                $0 = Task {
                    // Cancelled when the body returns: no hang to report then.
                    guard (try? await Task.sleep(for: limit)) != nil else { return }
                    end(false)
                }
            }
            Task {
                await body()
                timer.withLock { $0 }?.cancel()
                end(true)
            }
        }
    }
}

/// Where the program's entities are now, when the server assigns ids: the record of the store
/// holding the latest value the program wrote to the entity (every write's value is unique, so
/// a value names its entity wherever its record moved), else the id a create's answer gave.
struct SoakFollowedIDs {
    /// The id each entity was last answered under.
    var adopted: [String: String] = [:]
    /// The values the program wrote to each entity.
    var values: [String: Set<String>] = [:]

    /// Notes the value `operation` writes.
    mutating func began(_ operation: SoakOperation) {
        if let id = operation.writtenID, let value = operation.writtenValue { values[id, default: []].insert(value) }
    }

    /// How recent `record`'s value is (`v17` → 17), the record under `known` first among equals.
    static func order(_ record: StoredRecord, known: String) -> (Int, Int) {
        let value = record.object["value"]?.stringValue ?? ""
        return (Int(value.dropFirst()) ?? -1, record.id == known ? 1 : 0)
    }

    /// `operation` aimed at the id its entity has in `storage` now.
    mutating func follow(_ operation: SoakOperation, in storage: Storage) async throws -> SoakOperation {
        let program: String
        switch operation {
        case .update(let id, _), .patch(let id, _), .delete(let id), .read(let id): program = id
        default: return operation
        }
        let written = values[program] ?? []
        let records = try await storage.fetch(
            collection: "items", syncStates: Set(SyncState.allCases), after: nil, limit: 100_000
        ).filter { $0.object["value"]?.stringValue.map(written.contains) ?? false }
        // The record holding the latest value written: a server that ignores keys may have made a
        // second object for one create (a resend), and a pull may have stored it beside the
        // entity's own record, holding the create's value only.
        let known = adopted[program] ?? program
        let latest = records.max { Self.order($0, known: known) < Self.order($1, known: known) }
        let id = latest?.id ?? known
        adopted[program] = id
        switch operation {
        case .update(_, let value): return .update(id: id, value: value)
        case .patch(_, let value): return .patch(id: id, value: value)
        case .delete: return .delete(id: id)
        default: return .read(id: id)
        }
    }
}
