import Foundation

/// The outbox entries one sender holds, by leases stored with the entries (see ``OutboxLease``):
/// claimed in one transaction, renewed while the sender works through them, released when it is
/// done. Every claim has its own owner name, so two senders of one process exclude each other as
/// two processes do.
final class OutboxClaim: Sendable {
    /// How long a lease holds without renewal; renewed once half of it has passed.
    static let defaultDuration: TimeInterval = 60

    let owner = LeaseOwner.next()
    private let storage: Storage
    private let duration: TimeInterval
    private let state: LockedValue<(held: Set<Int64>, expiry: Date)>

    private init(storage: Storage, duration: TimeInterval, held: Set<Int64>, expiry: Date) {
        self.storage = storage
        self.duration = duration
        state = LockedValue((held, expiry))
    }

    /// Claims the claimable entries of `sequences` and counts an attempt on each; returns the
    /// claim and the entries it holds, as stored now, in the order of `sequences`.
    static func take(
        _ sequences: [Int64], in storage: Storage, duration: TimeInterval = defaultDuration
    ) async throws -> (claim: OutboxClaim, entries: [OutboxEntry]) {
        let duration = duration.isFinite ? min(max(duration, 1), 86_400) : defaultDuration
        let claim = OutboxClaim(storage: storage, duration: duration, held: [], expiry: .distantPast)
        guard !sequences.isEmpty else { return (claim, []) }
        let now = Date()
        let lease = OutboxLease(owner: claim.owner, expiry: now.addingTimeInterval(duration))
        let entries = try await storage.transaction { tx in
            try tx.claimOutbox(sequences: sequences, lease: lease, now: now)
        }.value
        claim.state.withLock { $0 = (Set(entries.map(\.sequence)), lease.expiry) }
        return (claim, entries)
    }

    /// The sequences this claim holds.
    var held: Set<Int64> { state.withLock { $0.held } }

    /// Whether the claim still holds `sequence`, renewing every lease it holds first when half
    /// their time has passed (a lease that lapsed meanwhile and was taken is given up).
    func holds(_ sequence: Int64) async throws -> Bool {
        let (held, expiry) = state.withLock { $0 }
        guard held.contains(sequence) else { return false }
        let now = Date()
        guard now >= expiry.addingTimeInterval(-duration / 2) else { return true }
        let (owner, newExpiry) = (self.owner, now.addingTimeInterval(duration))
        let renewed = try await storage.transaction { tx in
            try tx.renewOutboxLeases(sequences: Array(held), owner: owner, expiry: newExpiry)
        }.value
        state.withLock { $0 = ($0.held.intersection(renewed), newExpiry) }
        return renewed.contains(sequence)
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
        _ = try await storage.transaction { tx in try tx.releaseOutbox(sequences: Array(given), owner: owner) }
            .settledResult.get()
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
            throw error
        }
        try await releaseAll()
        return output
    }
}

extension Storage {
    /// Takes back one counted attempt on each entry of `sequences` (claimed, then not sent).
    func takeBackAttempts(_ sequences: [Int64]) async throws {
        guard !sequences.isEmpty else { return }
        try await transaction { tx in
            for sequence in sequences {
                guard var entry = try tx.outboxEntry(sequence: sequence), entry.attempts > 0 else { continue }
                entry.attempts -= 1
                try tx.replaceOutbox(entry)
            }
        }.value
    }
}
