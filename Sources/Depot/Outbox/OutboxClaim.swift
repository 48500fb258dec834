import Foundation

/// The outbox entries one sender holds, by leases stored with the entries (see ``OutboxLease``):
/// claimed in one transaction, renewed while the sender works through them and while each send is
/// in flight (``renewing(_:)``), released when it is done. Every claim has its own owner name (its
/// fencing token), so two senders of one process exclude each other as two processes do.
///
/// Lease expiries are on the store's clock (``OutboxTransaction/leaseTime()``), read inside the
/// claim's and each renewal's transaction; when to renew is timed on this process's monotonic
/// clock from before the transaction, so a sender renews in time whatever its wall clock says.
package final class OutboxClaim: Sendable {
    /// How long a lease holds without renewal; renewed once half of it has passed between sends,
    /// and every third of it during one.
    static let defaultDuration: TimeInterval = 60

    let owner = LeaseOwner.next()
    private let storage: Storage
    private let duration: TimeInterval
    /// The entries held, and when their leases lapse at the earliest, on this process's monotonic
    /// clock (a full duration from before the transaction that granted or renewed them).
    private let state: LockedValue<(held: Set<Int64>, deadline: ContinuousClock.Instant)>

    private init(storage: Storage, duration: TimeInterval) {
        self.storage = storage
        self.duration = duration
        state = LockedValue(([], .now))
    }

    deinit { Self.end(owner) }

    /// The claims of this process that hold entries, by owner, with the waiters for their end.
    private static let open = LockedValue<[String: [AsyncStream<Void>.Continuation]]>([:])

    /// Says that the claim of `owner` ended: its waiters go on.
    private static func end(_ owner: String) {
        for waiter in open.withLock({ $0.removeValue(forKey: owner) }) ?? [] {
            waiter.yield()
            waiter.finish()
        }
    }

    /// Whether `owner` names a claim of this process that holds (or held) entries and has not
    /// ended.
    package static func isOpen(_ owner: String) -> Bool { open.withLock { $0[owner] != nil } }

    /// The owners of this process's claims that have not ended, for a store's claim to leave
    /// alone whatever their leases' expiry says (see ``OutboxLease/isFree(at:)``).
    package static var openOwners: [String] { open.withLock { Array($0.keys) } }

    /// Returns when one of the claims of this process named by `owners` ends, or after `limit`;
    /// at once when none of them is a claim of this process still open. True when it waited.
    static func waitForEnd(of owners: Set<String>, atMost limit: Duration) async -> Bool {
        let (ended, waiter) = AsyncStream<Void>.makeStream()
        let waits = open.withLock { open -> Bool in
            let live = owners.filter { open[$0] != nil }
            for owner in live { open[owner]?.append(waiter) }
            return !live.isEmpty
        }
        guard waits else { return false }
        let timer = Task {
            try? await Task.sleep(for: limit)
            waiter.finish()
        }
        defer { timer.cancel() }
        for await _ in ended { break }
        return true
    }

    /// A duration of `duration` seconds clamped to 1 s … one day (the default when not finite).
    private static func clamped(_ duration: TimeInterval) -> TimeInterval {
        duration.isFinite ? min(max(duration, 1), 86_400) : defaultDuration
    }

    /// Claims the claimable entries of `sequences` and counts an attempt on each; returns the
    /// claim and the entries it holds, as stored now, in the order of `sequences`. An entry is
    /// claimed only with every earlier entry of its entity (see
    /// ``StorageTransaction/claimOutboxInOrder(sequences:lease:now:batch:)``).
    static func take(
        _ sequences: [Int64], in storage: Storage, duration: TimeInterval = defaultDuration
    ) async throws -> (claim: OutboxClaim, entries: [OutboxEntry]) {
        guard !sequences.isEmpty else { return (OutboxClaim(storage: storage, duration: clamped(duration)), []) }
        let (claim, entries, _) = try await take(in: storage, duration: duration) { tx, lease, now in
            (try tx.claimOutboxInOrder(sequences: sequences, lease: lease, now: now), ())
        }
        return (claim, entries)
    }

    /// Claims entries in one transaction that `body` runs: it claims them (with
    /// ``StorageTransaction/claimOutboxInOrder(sequences:lease:now:batch:)`` under the lease it is
    /// given, granted at `now`, the store's time read in that transaction) and reads or writes
    /// what must go with the claim. Returns the claim, holding the entries `body` returned, and
    /// what else it returned.
    static func take<Extra: Sendable>(
        in storage: Storage, duration: TimeInterval = defaultDuration,
        _ body: @escaping @Sendable (any StorageTransaction, OutboxLease, Date) throws -> ([OutboxEntry], Extra)
    ) async throws -> (claim: OutboxClaim, entries: [OutboxEntry], extra: Extra) {
        let duration = clamped(duration)
        let claim = OutboxClaim(storage: storage, duration: duration)
        let owner = claim.owner
        let started = ContinuousClock.now
        let (entries, extra) = try await storage.transaction { tx in
            let now = try tx.leaseTime()
            return try body(tx, OutboxLease(owner: owner, expiry: now.addingTimeInterval(duration)), now)
        }
        claim.state.withLock { $0 = (Set(entries.map(\.sequence)), started + .seconds(duration)) }
        if !entries.isEmpty { open.withLock { $0[owner] = $0[owner] ?? [] } }
        return (claim, entries, extra)
    }

    /// Claims every pending entry of one entity, in one transaction that reads them, claims them
    /// (all or none: an entry held by another sender means that sender sends them all) and reads
    /// the entity's record; nothing when one of them was refused, or waits for an entity's create
    /// still queued (``StorageTransaction/referenceHold(_:)``). Returns the claim, the entries it
    /// holds in order, and the record as that transaction read it; with `madeID`, whether the
    /// entity's id is one Depot made (read only when the first entry taken is a create); with
    /// `refusesReference`, whether one of them names an entity whose create will never go (the
    /// sender's reread of each entry refuses it, as every road does).
    static func take(
        entityOf collection: String, id entityID: String, in storage: Storage, duration: TimeInterval = defaultDuration
    ) async throws -> (
        claim: OutboxClaim, entries: [OutboxEntry], record: StoredRecord?, madeID: Bool, refusesReference: Bool
    ) {
        let (claim, entries, (record, madeID, refuses)) = try await take(in: storage, duration: duration) {
            tx, lease, now -> ([OutboxEntry], (StoredRecord?, Bool, Bool)) in
            let pending = try tx.outboxEntries(collection: collection, entityID: entityID)
            guard !pending.isEmpty, !pending.contains(where: \.isRejected),
                pending.allSatisfy({ $0.isClaimable(at: now) })
            else { return ([], (nil, false, false)) }
            // One names an entity whose create is not delivered yet: they wait for it. One naming
            // an entity whose create will never go is taken, to be refused.
            let holds = try pending.map(tx.referenceHold)
            guard !holds.contains(.waits) else { return ([], (nil, false, false)) }
            let taken = try tx.claimOutboxInOrder(sequences: pending.map(\.sequence), lease: lease, now: now)
            let madeID = try taken.first?.operation == .create && tx.isTemporaryID(collection: collection, id: entityID)
            let refuses = holds.contains { if case .refused = $0 { true } else { false } }
            return (taken, (try tx.fetch(collection: collection, id: entityID), madeID, refuses))
        }
        return (claim, entries, record, madeID, refuses)
    }

    /// Claims more entries under this claim's owner (its fencing token), in one transaction that
    /// `body` runs as in ``take(in:duration:_:)``, with a lease of a full duration from the store's
    /// time now; the claim then holds them too. Returns what `body` returned.
    func extend<Extra: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction, OutboxLease, Date) throws -> ([OutboxEntry], Extra)
    ) async throws -> (entries: [OutboxEntry], extra: Extra) {
        let (owner, duration) = (self.owner, self.duration)
        let started = ContinuousClock.now
        let (entries, extra) = try await storage.transaction { tx in
            let now = try tx.leaseTime()
            return try body(tx, OutboxLease(owner: owner, expiry: now.addingTimeInterval(duration)), now)
        }
        let holds = state.withLock { state -> Bool in
            // The leases held before keep their own (earlier) expiry.
            state.deadline = state.held.isEmpty ? started + .seconds(duration) : state.deadline
            state.held.formUnion(entries.map(\.sequence))
            return !state.held.isEmpty
        }
        if holds { Self.open.withLock { $0[owner] = $0[owner] ?? [] } }
        return (entries, extra)
    }

    /// How many more claims ``retakeContended(_:taken:)`` makes at most for entries no other
    /// sender holds.
    static let contendedRounds = 8

    /// `taken` (what a claim of `entries` took), with the entries it missed only because another
    /// transaction touched them at that moment (a claim on PostgreSQL skips a row or an entity
    /// another transaction holds locked, never waits for it): each of those is claimed again,
    /// in a transaction that reads first whether another sender holds it or an earlier entry of
    /// its entity (a lease live on the store's clock, an open batch) or it was refused. Only that
    /// stored fact keeps an entry from this claim; a lock of the moment does not. In the order
    /// of `entries`; at most ``contendedRounds`` more claims.
    func retakeContended(_ entries: [OutboxEntry], taken: [OutboxEntry]) async throws -> [OutboxEntry] {
        var taken = taken
        var missed = entries.filter { entry in !taken.contains { $0.sequence == entry.sequence } }
        var rounds = 0
        while !missed.isEmpty, rounds < Self.contendedRounds {
            rounds += 1
            let candidates = missed
            let (more, free) = try await extend { tx, lease, now -> ([OutboxEntry], Int) in
                let free = try tx.unheldOutbox(candidates, at: now)
                guard !free.isEmpty else { return ([], 0) }
                return (try tx.claimOutboxInOrder(sequences: free, lease: lease, now: now), free.count)
            }
            guard free > 0 else { break }
            taken += more
            missed.removeAll { entry in more.contains { $0.sequence == entry.sequence } }
            if more.isEmpty { await Task.yield() }
        }
        let order = Dictionary(entries.enumerated().map { ($1.sequence, $0) }, uniquingKeysWith: min)
        return taken.sorted { (order[$0.sequence] ?? .max) < (order[$1.sequence] ?? .max) }
    }

    /// Stops holding `sequence` without a write: its entry is gone from the store (delivered), so
    /// there is no lease left to release.
    func settled(_ sequence: Int64) {
        state.withLock { _ = $0.held.remove(sequence) }
    }

    /// The sequences this claim holds.
    var held: Set<Int64> { state.withLock { $0.held } }

    /// Whether the claim still holds `sequence`, renewing every lease it holds first when half
    /// their time has passed (a lease that lapsed meanwhile and was taken is given up).
    func holds(_ sequence: Int64) async throws -> Bool {
        let (held, deadline) = state.withLock { $0 }
        guard held.contains(sequence) else { return false }
        guard ContinuousClock.now >= deadline - .seconds(duration / 2) else { return true }
        return try await renew().contains(sequence)
    }

    /// Moves the expiry of every lease the claim holds to a full duration from the store's time
    /// now; returns the sequences it still holds (a lease that lapsed and was taken by another
    /// sender is given up).
    @discardableResult
    func renew() async throws -> Set<Int64> {
        let held = self.held
        guard !held.isEmpty else { return [] }
        let (owner, duration) = (self.owner, self.duration)
        let started = ContinuousClock.now
        let renewed = try await storage.transaction { tx in
            try tx.renewOutboxLeases(
                sequences: Array(held), owner: owner, expiry: try tx.leaseTime().addingTimeInterval(duration))
        }
        return state.withLock { state in
            state.held.subtract(held.subtracting(renewed))
            state.deadline = max(state.deadline, started + .seconds(duration))
            return state.held
        }
    }

    /// Runs `body` (one send and the storing of its answer) while a child task renews the claim's
    /// leases every third of their duration (on this process's monotonic clock, as the store's
    /// clock runs: never on an injected forwarder clock), so a slow send — timeouts, retries,
    /// `Retry-After` — never outlives its lease and no other sender takes the entry meanwhile.
    /// The renewal stops when `body` returns or throws.
    func renewing<Output: Sendable>(_ body: () async throws -> Output) async throws -> Output {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let period = Duration.seconds(duration / 3)
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: period)
                    // A failed renewal is tried again next period; the lease has two more left.
                    _ = try? await self.renew()
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Gives up `sequences` (entries the sender decided not to send after all).
    func release(_ sequences: some Sequence<Int64>) async throws {
        let given = state.withLock { state in
            let given = state.held.intersection(sequences)
            state.held.subtract(given)
            return given
        }
        guard !given.isEmpty else { return }
        let owner = self.owner
        // Not cancelled with the sender's task: a lease left behind would hold the entries back
        // until it lapses.
        let storage = self.storage
        _ = try await Task {
            try await storage.transaction { tx in try tx.releaseOutbox(sequences: Array(given), owner: owner) }
        }.value
    }

    /// Gives up every entry still held.
    func releaseAll() async throws { try await release(held) }

    /// Runs `body`, then releases every entry still held, whether `body` threw or not.
    func releasing<Output>(after body: () async throws -> Output) async throws -> Output {
        let output: Output
        do {
            output = try await body()
        } catch {
            // The body's error is the one to report; a failed release lapses with the lease.
            _ = try? await releaseAll()
            Self.end(owner)
            throw error
        }
        defer { Self.end(owner) }
        try await releaseAll()
        return output
    }
}

extension Storage {
    /// Takes back one counted attempt on each entry of `sequences` (claimed, then not sent) that
    /// `owner` still holds: an entry another sender took since carries that sender's attempt.
    func takeBackAttempts(_ sequences: [Int64], owner: String) async throws {
        guard !sequences.isEmpty else { return }
        try await transaction { tx in
            for sequence in sequences {
                guard var entry = try tx.outboxEntry(sequence: sequence), entry.lease?.owner == owner,
                    entry.attempts > 0
                else { continue }
                entry.attempts -= 1
                try tx.replaceOutbox(entry)
            }
        }
    }
}

extension StorageTransaction {
    /// The sequences of `entries` still stored that no other sender holds at `now` (the store's
    /// time): neither the entry nor an earlier entry of its entity is refused, leased by a lease
    /// live at `now`, or in an open batch. What a claim that missed them was kept from only by
    /// another transaction of the moment.
    func unheldOutbox(_ entries: [OutboxEntry], at now: Date) throws -> [Int64] {
        let batched = try outboxBatchSequences(except: nil)
        var free: [Int64] = []
        for entry in entries {
            let entity = try outboxEntries(collection: entry.collection, entityID: entry.entityID)
            guard entity.contains(where: { $0.sequence == entry.sequence }) else { continue }
            let unheld = entity.filter { $0.sequence <= entry.sequence }.allSatisfy {
                $0.isClaimable(at: now) && !batched.contains($0.sequence)
            }
            if unheld { free.append(entry.sequence) }
        }
        return free
    }

    /// Claims the claimable entries of `sequences` (``claimOutbox(sequences:lease:now:)``), then
    /// gives back, in the same transaction, each one an earlier entry of its entity is not claimed
    /// with: held by another sender, or not asked for. One entity's writes reach the server in the
    /// order they were made, whichever road sends them.
    ///
    /// An entry an open batch holds (see ``OutboxBatch``) is given back too, with its entity's
    /// later entries, unless `batch` is that batch's key (the batch sent again): it goes again
    /// only in that batch, under its key, until the batch's answer is known.
    func claimOutboxInOrder(sequences: [Int64], lease: OutboxLease, now: Date, batch: String? = nil) throws
        -> [OutboxEntry]
    {
        var claimed = try claimOutbox(sequences: sequences, lease: lease, now: now)
        var undo: [OutboxEntry] = []
        if !claimed.isEmpty {
            let batched = try outboxBatchSequences(except: batch)
            if !batched.isEmpty {
                undo = claimed.filter { batched.contains($0.sequence) }
                claimed.removeAll { batched.contains($0.sequence) }
            }
        }
        let taken = Set(claimed.map(\.sequence))
        var firstClaimed: [OutboxEngine.EntityKey: Int64] = [:]
        for entry in claimed {
            let key = OutboxEngine.EntityKey(entry)
            firstClaimed[key] = min(firstClaimed[key] ?? entry.sequence, entry.sequence)
        }
        var outOfOrder: Set<OutboxEngine.EntityKey> = []
        for (key, first) in firstClaimed {
            let earlier = try outboxEntries(collection: key.collection, entityID: key.entityID).filter {
                $0.sequence < first && !taken.contains($0.sequence)
            }
            // A refused earlier entry holds the entity back as well; leave that to the caller.
            if earlier.contains(where: { !$0.isRejected }) { outOfOrder.insert(key) }
        }
        var kept: [OutboxEntry] = []
        for entry in claimed {
            if outOfOrder.contains(OutboxEngine.EntityKey(entry)) { undo.append(entry) } else { kept.append(entry) }
        }
        for entry in undo {
            var undone = entry
            undone.lease = nil
            undone.attempts = max(undone.attempts - 1, 0)
            try replaceOutbox(undone)
        }
        return kept
    }
}
