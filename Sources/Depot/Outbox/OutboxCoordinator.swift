import Foundation

/// Who to wake when a local write records an outbox entry: the forwarders of this process
/// observing one storage object, and the configuration they publish, which every other road to
/// the server of that storage (a local-first write's immediate send, `synchronize()`'s entity by
/// entity push) sends with. Claims on entries are not kept here but in the store itself
/// (see ``OutboxLease``), so they hold across storage objects and processes.
package final class OutboxCoordinator: Sendable {
    /// An observer: its wake-up, and the configuration its forwarder sends with.
    private struct Observer {
        var handler: @Sendable () -> Void
        var configuration: ForwarderConfiguration?
        /// Whether its forwarder is running (started, not stopping), so a write's wake-up is sent.
        var isRunning: @Sendable () -> Bool
        /// Registration order: the first registered forwarder's configuration wins.
        var order: Int
    }

    private let observers = LockedValue<[UUID: Observer]>([:])
    private let registrations = LockedValue(0)

    /// The coordinators of storage objects that have observers; one is dropped when its last
    /// observer goes, so the registry never grows past the forwarders alive.
    private static let all = LockedValue<[ObjectIdentifier: OutboxCoordinator]>([:])

    /// The coordinator of `storage` (a class instance; every Depot storage is one).
    static func of(_ storage: Storage) -> OutboxCoordinator {
        let key = ObjectIdentifier(storage as AnyObject)
        return all.withLock { all in
            if let coordinator = all[key] { return coordinator }
            let coordinator = OutboxCoordinator(key: key)
            all[key] = coordinator
            return coordinator
        }
    }

    /// The configuration of the forwarder observing `storage` (the first registered, when there
    /// are several), or nil when no forwarder of this process has started on it. It does not
    /// register a coordinator.
    static func configuration(of storage: Storage) -> ForwarderConfiguration? {
        let key = ObjectIdentifier(storage as AnyObject)
        return all.withLock { $0[key] }?.configuration
    }

    /// The first registered observer's configuration, if it published one.
    var configuration: ForwarderConfiguration? {
        observers.withLock { observers in
            observers.values.filter { $0.configuration != nil }.min { $0.order < $1.order }?.configuration
        }
    }

    /// Whether a forwarder of this process is running on `storage` now: a local-first write's
    /// immediate send is then left to it (the write's wake-up reaches it), not raced for the lease.
    static func hasRunningForwarder(_ storage: Storage) -> Bool {
        let key = ObjectIdentifier(storage as AnyObject)
        guard let coordinator = all.withLock({ $0[key] }) else { return false }
        let running = coordinator.observers.withLock { $0.values.map(\.isRunning) }
        return running.contains { $0() }
    }

    /// Wakes the observers of `storage`, if it has any.
    package static func notify(_ storage: Storage) {
        let key = ObjectIdentifier(storage as AnyObject)
        all.withLock { $0[key] }?.notify()
    }

    /// How many storage objects have observers (for tests).
    static var registered: Int { all.withLock { $0.count } }

    private let key: ObjectIdentifier

    private init(key: ObjectIdentifier) { self.key = key }

    /// Calls `handler` after every local write that records an outbox entry, until `removeObserver`;
    /// meanwhile `configuration` (a forwarder's) is what the storage's other roads send with.
    func addObserver(
        configuration: ForwarderConfiguration? = nil, isRunning: @escaping @Sendable () -> Bool = { false },
        _ handler: @escaping @Sendable () -> Void
    ) -> UUID {
        let token = UUID.randomV4()
        let order = registrations.withLock { count in
            count += 1
            return count
        }
        Self.all.withLock { all in
            // Registered again in case the last observer's removal dropped this coordinator.
            all[key] = all[key] ?? self
            observers.withLock {
                $0[token] = Observer(handler: handler, configuration: configuration, isRunning: isRunning, order: order)
            }
        }
        return token
    }

    /// Stops calling the handler registered under `token`; the coordinator leaves the registry
    /// when it has no observer left.
    func removeObserver(_ token: UUID) {
        Self.all.withLock { all in
            let empty = observers.withLock { observers in
                observers.removeValue(forKey: token)
                return observers.isEmpty
            }
            if empty, all[key] === self { all[key] = nil }
        }
    }

    /// Tells every observer that the outbox has something new.
    func notify() {
        let handlers = observers.withLock { $0.values.map(\.handler) }
        for handler in handlers { handler() }
    }
}
