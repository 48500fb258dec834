import Depot
import Foundation

/// A storage whose next write (a transaction or an upsert) waits, once, for a gate the test sets
/// with ``gateNextWrite(_:)``: a test makes something happen while a pull's merge is held.
/// Everything else goes straight to `base`.
final class WriteGatedStorage: Storage {
    let base: any Storage
    private let gate = LockedValue<(@Sendable () async throws -> Void)?>(nil)

    init(_ base: any Storage) { self.base = base }

    /// Makes the next write wait for `gate` first; the write fails with what `gate` throws.
    func gateNextWrite(_ gate: @escaping @Sendable () async throws -> Void) {
        self.gate.withLock { $0 = gate }
    }

    private func passGate() async throws {
        let taken = gate.withLock { gate in
            defer { gate = nil }
            return gate
        }
        try await taken?()
    }

    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    {
        try await base.fetch(collection: collection, syncStates: states, after: id, limit: limit)
    }
    func insert(_ record: StoredRecord) async throws {
        try await passGate()
        try await base.insert(record)
    }
    func upsert(_ records: [StoredRecord]) async throws {
        try await passGate()
        try await base.upsert(records)
    }
    func upsert(encoded records: [EncodedRecord]) async throws {
        try await passGate()
        try await base.upsert(encoded: records)
    }
    func fetch(collection: String, id: String) async throws -> StoredRecord? {
        try await base.fetch(collection: collection, id: id)
    }
    func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        try await base.fetch(collection: collection, matching: criteria)
    }
    func delete(collection: String, id: String) async throws -> Bool {
        try await base.delete(collection: collection, id: id)
    }
    func deleteAll(collection: String) async throws { try await base.deleteAll(collection: collection) }
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        try await passGate()
        return try await base.transaction(body)
    }
    func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] { try await base.outbox(query) }
    func outboxCount(_ query: OutboxQuery) async throws -> Int { try await base.outboxCount(query) }
}

/// Opens once, by an event or, failing that, when a wait's time is up.
final class Latch: Sendable {
    private struct State {
        var open = false
        /// True when the latch was opened by a wait's time running out, not by the event.
        var timedOut = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// Opens the latch; every waiter goes on.
    func open() { open(timedOut: false) }

    /// Waits until the latch opens, at most `limit`; true when the event opened it.
    func wait(upTo limit: Duration) async -> Bool {
        let timer = Task {
            try await Task.sleep(for: limit)
            open(timedOut: true)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goOn = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if goOn { continuation.resume() }
        }
        timer.cancel()
        return state.withLock { !$0.timedOut }
    }

    private func open(timedOut: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.open else { return [] }
            (state.open, state.timedOut) = (true, timedOut)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
