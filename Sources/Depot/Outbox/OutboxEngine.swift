import Foundation
import Metrics

/// The I/O of forwarding: reads due entries from the store, claims them, sends them through their
/// repository's channel and stores each answer with its entry's removal in one transaction. Used
/// by ``Forwarder`` passes and by a local-first write's immediate send.
struct OutboxEngine: Sendable {
    let storage: Storage
    let channels: [String: OutboxChannel]
    let configuration: ForwarderConfiguration
    let emit: @Sendable (ForwarderEvent) -> Void

    init(
        storage: Storage, channels: [String: OutboxChannel], configuration: ForwarderConfiguration,
        emit: @escaping @Sendable (ForwarderEvent) -> Void = { _ in }
    ) {
        self.storage = storage
        self.channels = channels
        self.configuration = configuration
        self.emit = emit
    }

    /// An entity: the unit of ordering.
    struct EntityKey: Hashable, Sendable {
        var collection: String
        var entityID: String

        init(_ entry: OutboxEntry) {
            collection = entry.collection
            entityID = entry.entityID
        }
    }

    /// What one pass did, and when the first entry it left waiting is due.
    struct PassResult: Sendable {
        var report = ForwardingReport()
        var nextDue: Date?
        /// The entities held back for a create they name (``EntryResult/held``).
        var held: Set<EntityKey> = []
        /// The entities the pass left behind (held, waiting, refused, another sender's).
        var blocked: Set<EntityKey> = []
    }

    /// How one entry ended in a pass.
    enum EntryResult: Sendable {
        /// Delivered, or its conflict resolved: the entity's next entry may go.
        case done
        /// Waits for a retry at this time: the entity's later entries wait too.
        case waiting(Date)
        /// Refused for good: the entity's later entries wait behind it.
        case rejected
        /// Its lease was lost to another sender, which sends it now: nothing was written back,
        /// and the entity's later entries are left to that sender in this pass.
        case lost
        /// Names, under a declared ``EntityReference``, an entity whose id Depot made and whose
        /// create is not delivered yet: not sent, its attempt taken back; the entity's later
        /// entries wait with it until that create's answer gives the server's id.
        case held
        /// Recorded under an account that is not signed in (``OutboxEntry/account``): not sent,
        /// and the entity's later entries wait behind it until that account is back.
        case otherAccount
    }

    /// Sends the pending entries in sequence order, `pageSize` at a time. With `everything`, entries
    /// waiting for a retry go now too (a flush); else only those due. Stops early, between entries,
    /// when `shouldContinue` turns false. An entity held back for a create it names
    /// (``EntryResult/held``) goes in a pass run again at once, for the held entities only, when
    /// this one delivered anything (that create, perhaps) and left no entry waiting for a retry: a
    /// flush leaves no entry behind a create it delivered, and sends no failed entry twice.
    func pass(everything: Bool, shouldContinue: @escaping @Sendable () -> Bool) async -> PassResult {
        var result = PassResult()
        var blocked: Set<EntityKey> = []
        while true {
            let round = await passOnce(everything: everything, blocked: blocked, shouldContinue: shouldContinue)
            result.report.add(round.report)
            if let due = round.nextDue { result.nextDue = min(result.nextDue ?? due, due) }
            // A waiting entry holds the global order; any other entity left behind stays so.
            guard !round.held.isEmpty, round.report.delivered > 0, round.nextDue == nil, shouldContinue()
            else { break }
            blocked = round.blocked.subtracting(round.held)
        }
        await recordGauges()
        return result
    }

    /// One pass of ``pass(everything:shouldContinue:)``, leaving the entities of `blocked` alone.
    private func passOnce(
        everything: Bool, blocked initial: Set<EntityKey>, shouldContinue: @escaping @Sendable () -> Bool
    ) async -> PassResult {
        var result = PassResult()
        var blocked = initial
        var after: Int64?
        do {
            // A sender that died (a process killed mid-send) holds no lease: its entries are free
            // now, not when their leases lapse.
            _ = try await storage.transaction { tx in try tx.releaseLeasesOfEndedOwners() }
            // Entities with a refused entry keep their later entries back.
            for entry in try await storage.outbox(query(.rejected)) { blocked.insert(EntityKey(entry)) }
            while shouldContinue() {
                let page = try await storage.outbox(query(.pending, after: after, limit: configuration.pageSize))
                guard let last = page.last else { break }
                after = last.sequence
                // Retry times are on the store's clock when the forwarder's is a wall clock: read
                // once a page holds one, and told back on this clock for the wait.
                var now: (store: Date, offset: TimeInterval)?
                var selected: [OutboxEntry] = []
                // Entities with another account's write: their later entries wait behind it, their
                // earlier ones (selected already) still go, or neither account would ever send them.
                var heldBehind: Set<EntityKey> = []
                var stop = false
                for entry in page {
                    let key = EntityKey(entry)
                    if blocked.contains(key) || heldBehind.contains(key) { continue }
                    if channels[entry.collection]?.isForAnotherAccount(entry) == true {
                        // Another account's write: never claimed, never sent as the one signed in.
                        hold(entry, report: &result.report)
                        heldBehind.insert(key)
                        continue
                    }
                    if !everything, entry.nextAttempt != nil, now == nil { now = try await retryClock() }
                    if !everything, let stored = entry.nextAttempt, let now, stored > now.store {
                        let due = stored.addingTimeInterval(-now.offset)
                        result.nextDue = min(result.nextDue ?? due, due)
                        blocked.insert(key)
                        if configuration.maximumConcurrency == 1 {
                            stop = true  // the global order waits for this entry
                            break
                        }
                        continue
                    }
                    selected.append(entry)
                }
                let stopped = try await send(
                    selected, blocked: &blocked, result: &result, shouldContinue: shouldContinue)
                blocked.formUnion(heldBehind)
                if stop || stopped { break }
            }
        } catch {
            let failure = error as? DepotError ?? DepotError(.storage, "\(error)", underlying: error)
            if !failure.isCancellation { result.report.errors.append(failure) }
        }
        result.blocked = blocked
        return result
    }

    /// The time retry times are judged on, and how far it runs ahead of the forwarder's clock:
    /// the store's (``OutboxTransaction/leaseTime()``) when that clock is a wall clock, else the
    /// forwarder's own.
    private func retryClock() async throws -> (store: Date, offset: TimeInterval) {
        guard configuration.clock.isWallClock else { return (configuration.clock.now, 0) }
        let store = try await storage.transaction { tx in try tx.leaseTime() }
        return (store, store.timeIntervalSince(configuration.clock.now))
    }

    /// Records `depot.outbox.pending` and `depot.outbox.rejected` after a pass, when a metrics
    /// backend is there (two counting reads of the store; none otherwise).
    private func recordGauges() async {
        guard let factory = DepotTelemetry.factory(channels.values.first?.store) else { return }
        do {
            let pending = try await storage.outboxCount(query(.pending))
            let rejected = try await storage.outboxCount(query(.rejected))
            Gauge(label: "depot.outbox.pending", factory: factory).record(pending)
            Gauge(label: "depot.outbox.rejected", factory: factory).record(rejected)
        } catch {
            // A metric is not worth a failed pass: the next pass records again.
        }
    }

    /// Sends `entries` (one page, in order): one at a time, or by entity up to the concurrency
    /// limit. Returns true when the pass must stop (the global order is held by a waiting entry).
    private func send(
        _ entries: [OutboxEntry], blocked: inout Set<EntityKey>, result: inout PassResult,
        shouldContinue: @escaping @Sendable () -> Bool
    ) async throws -> Bool {
        guard !entries.isEmpty else { return false }
        let (claim, first) = try await OutboxClaim.take(
            entries.map(\.sequence), in: storage, duration: configuration.leaseSeconds)
        return try await claim.releasing {
            let taken = try await claim.retakeContended(entries, taken: first)
            // Another sender holds an entry: its entity waits for the next pass.
            let takenSequences = Set(taken.map(\.sequence))
            for entry in entries where !takenSequences.contains(entry.sequence) { blocked.insert(EntityKey(entry)) }
            try await unmarkAttempted(taken.filter { blocked.contains(EntityKey($0)) })
            let fresh = taken.filter { !blocked.contains(EntityKey($0)) }
            return try await send(
                claimed: fresh, claim: claim, blocked: &blocked, result: &result, shouldContinue: shouldContinue)
        }
    }

    /// Sends the entries a pass claimed: one at a time, or by entity up to the concurrency limit.
    /// Returns true when the pass must stop.
    private func send(
        claimed fresh: [OutboxEntry], claim: OutboxClaim, blocked: inout Set<EntityKey>, result: inout PassResult,
        shouldContinue: @escaping @Sendable () -> Bool
    ) async throws -> Bool {
        if configuration.maximumConcurrency == 1 {
            var unsent = fresh[...]
            while let entry = unsent.popFirst() {
                guard shouldContinue() else {
                    try await unmarkAttempted(CollectionOfOne(entry) + unsent)
                    return true
                }
                if blocked.contains(EntityKey(entry)) {
                    try await unmarkAttempted(CollectionOfOne(entry))
                    continue
                }
                guard try await claim.holds(entry.sequence) else {
                    // Its lease lapsed and another sender took it: the entity is theirs now.
                    blocked.insert(EntityKey(entry))
                    continue
                }
                var report = ForwardingReport()
                let (outcome, sent) = try await process(entry, claim: claim, report: &report)
                result.report.add(report)
                switch outcome {
                case .done: continue
                case .rejected, .lost, .otherAccount: blocked.formUnion([EntityKey(entry), sent])
                case .held:
                    result.held.insert(sent)
                    blocked.formUnion([EntityKey(entry), sent])
                case .waiting(let due):
                    result.nextDue = min(result.nextDue ?? due, due)
                    blocked.formUnion([EntityKey(entry), sent])
                    try await unmarkAttempted(unsent)
                    return true
                }
            }
            return false
        }
        var lanes: [EntityKey: [OutboxEntry]] = [:]
        var order: [EntityKey] = []
        for entry in fresh where !blocked.contains(EntityKey(entry)) {
            let key = EntityKey(entry)
            if lanes[key] == nil { order.append(key) }
            lanes[key, default: []].append(entry)
        }
        let outcomes = try await withThrowingTaskGroup(
            of: (EntityKey, EntityKey, ForwardingReport, EntryResult?).self
        ) { group in
            var outcomes: [(EntityKey, EntityKey, ForwardingReport, EntryResult?)] = []
            var waiting = order[...]
            var running = 0
            while !waiting.isEmpty || running > 0 {
                while running < configuration.maximumConcurrency, let key = waiting.popFirst() {
                    let lane = lanes[key] ?? []
                    running += 1
                    group.addTask {
                        var report = ForwardingReport()
                        var unsent = lane[...]
                        while let entry = unsent.popFirst() {
                            guard shouldContinue() else {
                                try await unmarkAttempted(CollectionOfOne(entry) + unsent)
                                return (key, key, report, nil)
                            }
                            guard try await claim.holds(entry.sequence) else {
                                // Its lease lapsed and another sender took it: held back like a
                                // refused entry, for this pass.
                                try await unmarkAttempted(unsent)
                                return (key, key, report, .lost)
                            }
                            let (outcome, sent) = try await process(entry, claim: claim, report: &report)
                            if case .done = outcome { continue }
                            try await unmarkAttempted(unsent)
                            return (key, sent, report, outcome)
                        }
                        return (key, key, report, nil)
                    }
                }
                if let outcome = try await group.next() {
                    running -= 1
                    outcomes.append(outcome)
                }
            }
            return outcomes
        }
        for (key, sent, report, outcome) in outcomes {
            result.report.add(report)
            switch outcome {
            case .rejected?, .lost?, .otherAccount?: blocked.formUnion([key, sent])
            case .held?:
                result.held.insert(sent)
                blocked.formUnion([key, sent])
            case .waiting(let due)?:
                blocked.formUnion([key, sent])
                result.nextDue = min(result.nextDue ?? due, due)
            case .done?, nil: break
            }
        }
        return !shouldContinue()
    }

    /// Sends the pending entries of one entity now, in order, stopping at the first that does not
    /// go through: a local-first write's immediate send.
    ///
    /// One transaction claims the entity's entries and reads its record; the first entry goes
    /// with what it read (no second read), and a delivered entry's lease goes with the entry, so a
    /// create delivered at once costs three storage transactions: the write, the claim, the answer.
    ///
    /// `answerOf` names an entry whose answer the caller waits for (a remote-first write folded
    /// into it): the report keeps that one answer (``ForwardingReport/answer``) when it is delivered.
    func deliver(
        collection: String, entityID: String, answerOf carrier: Int64? = nil
    ) async throws -> ForwardingReport {
        var report = ForwardingReport()
        report.answerOf = carrier
        // Held by another sender (or one refused): that sender sends them all, in order.
        let (claim, taken, record, madeID, refuses) = try await OutboxClaim.take(
            entityOf: collection, id: entityID, in: storage, duration: configuration.leaseSeconds)
        guard let first = taken.first else { return report }
        return try await claim.releasing {
            var unsent = taken[...]
            // One names an entity whose create will never go: each entry's own reread refuses it.
            var prefetched: (OutboxEntry, StoredRecord?)? = refuses ? nil : (first, record)
            while let entry = unsent.popFirst() {
                guard try await claim.holds(entry.sequence),
                    case .done = try await process(
                        entry, claim: claim, report: &report, prefetched: prefetched,
                        madeID: prefetched == nil ? nil : madeID
                    ).result
                else {
                    try await unmarkAttempted(unsent)
                    break
                }
                prefetched = nil
            }
            return report
        }
    }

    /// Reports `entry` held: recorded under an account other than the one signed in now.
    func hold(_ entry: OutboxEntry, report: inout ForwardingReport) {
        report.held.append(entry)
        emit(.held(entry))
    }

    /// The pending entries recorded under an account other than the one their repository's
    /// session declares now (``OutboxChannel/isForAnotherAccount(_:)``), in order.
    func heldEntries() async throws -> [OutboxEntry] {
        try await storage.outbox(query(.pending)).filter { channels[$0.collection]?.isForAnotherAccount($0) == true }
    }

    func query(_ selection: OutboxQuery.Selection, after: Int64? = nil, limit: Int? = nil) -> OutboxQuery {
        OutboxQuery(collections: Set(channels.keys), selection: selection, after: after, limit: limit)
    }
}
