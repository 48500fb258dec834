import Foundation

/// What the forwarders and repositories of one process share about one storage's outbox: the
/// entries being sent right now (so two senders never send one entry at once) and who to wake when
/// a local write records a new entry.
final class OutboxCoordinator: Sendable {
    private struct State {
        var claimed: Set<Int64> = []
        var observers: [UUID: @Sendable () -> Void] = [:]
    }

    private let state = LockedValue(State())

    /// The coordinators, one per storage object whose outbox was used, kept for the process's life
    /// (a few bytes each; a forwarder removes its observer when it stops).
    private static let all = LockedValue<[ObjectIdentifier: OutboxCoordinator]>([:])

    /// The coordinator of `storage` (a class instance; every Depot storage is one).
    static func of(_ storage: Storage) -> OutboxCoordinator {
        let key = ObjectIdentifier(storage as AnyObject)
        return all.withLock { all in
            if let coordinator = all[key] { return coordinator }
            let coordinator = OutboxCoordinator()
            all[key] = coordinator
            return coordinator
        }
    }

    /// Marks `sequences` as being sent; returns those that were free (now claimed).
    func claim(_ sequences: [Int64]) -> Set<Int64> {
        state.withLock { state in
            var taken: Set<Int64> = []
            for sequence in sequences where state.claimed.insert(sequence).inserted { taken.insert(sequence) }
            return taken
        }
    }

    /// Releases `sequences`.
    func release(_ sequences: some Sequence<Int64>) {
        state.withLock { state in for sequence in sequences { state.claimed.remove(sequence) } }
    }

    /// Calls `handler` after every local write that records an outbox entry, until `removeObserver`.
    func addObserver(_ handler: @escaping @Sendable () -> Void) -> UUID {
        let token = UUID()
        state.withLock { $0.observers[token] = handler }
        return token
    }

    /// Stops calling the handler registered under `token`.
    func removeObserver(_ token: UUID) {
        state.withLock { _ = $0.observers.removeValue(forKey: token) }
    }

    /// Tells every observer that the outbox has something new.
    func notify() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer() }
    }
}
