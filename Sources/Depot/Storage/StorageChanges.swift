import Foundation

/// What one committed write changed in one collection.
public struct StorageChange: Sendable, Hashable {
    /// The collection.
    public var collection: String
    /// Ids of records added or replaced.
    public var changed: Set<String>
    /// Ids of records removed.
    public var deleted: Set<String>
    /// True when the whole collection was cleared (`deleteAll`): the ids are not listed.
    public var cleared: Bool

    /// Makes a change.
    public init(collection: String, changed: Set<String> = [], deleted: Set<String> = [], cleared: Bool = false) {
        self.collection = collection
        self.changed = changed
        self.deleted = deleted
        self.cleared = cleared
    }
}

/// Collects what a write changes, to publish once it commits.
package final class ChangeRecorder: Sendable {
    private let state = LockedValue<(changes: [String: StorageChange], outbox: Bool)>(([:], false))
    /// What a statement of the write already announced to other processes itself (PostgreSQL: a
    /// notice riding with the statement): records added or replaced, and the outbox.
    private let announced = LockedValue<(changed: [String: Set<String>], outbox: Bool)>(([:], false))

    package init() {}

    package func changed(_ collection: String, _ id: String) {
        state.withLock { _ = $0.changes[collection, default: StorageChange(collection: collection)].changed.insert(id) }
    }

    package func deleted(_ collection: String, _ id: String) {
        state.withLock { _ = $0.changes[collection, default: StorageChange(collection: collection)].deleted.insert(id) }
    }

    package func cleared(_ collection: String) {
        state.withLock { $0.changes[collection, default: StorageChange(collection: collection)].cleared = true }
    }

    /// Notes that an outbox entry was added, changed or removed.
    package func outbox() { state.withLock { $0.outbox = true } }

    /// What was recorded so far: the changes per collection and whether the outbox changed.
    package var recorded: (changes: [StorageChange], outbox: Bool) {
        state.withLock { (Array($0.changes.values), $0.outbox) }
    }

    /// Notes that a statement announced the change of `id` of `collection` itself.
    package func announced(_ collection: String, _ id: String) {
        announced.withLock { _ = $0.changed[collection, default: []].insert(id) }
    }

    /// Notes that a statement announced the outbox's change itself.
    package func announcedOutbox() { announced.withLock { $0.outbox = true } }

    /// What was recorded and no statement announced: the records added or replaced that were not
    /// announced, every removal and clearing, and the outbox unless it was announced.
    package var unannounced: (changes: [StorageChange], outbox: Bool) {
        let (changes, outbox) = state.withLock { ($0.changes, $0.outbox) }
        let told = announced.withLock { $0 }
        var left: [StorageChange] = []
        for var change in changes.values {
            if let ids = told.changed[change.collection] { change.changed.subtract(ids) }
            if !change.changed.isEmpty || !change.deleted.isEmpty || change.cleared { left.append(change) }
        }
        return (left, outbox && !told.outbox)
    }

    /// Tells the observers of `storage`.
    package func publish(for storage: AnyObject) {
        let (changes, outbox) = state.withLock { ($0.changes, $0.outbox) }
        StorageChanges.publish(Array(changes.values), outbox: outbox, for: storage)
    }
}

/// The observers of each storage object of this process: told after every committed write.
enum StorageChanges {
    private final class Hub: Sendable {
        let subscribers = LockedValue<[UUID: @Sendable ([StorageChange], Bool) -> Void]>([:])
    }

    private static let hubs = LockedValue<[ObjectIdentifier: Hub]>([:])

    static func publish(_ changes: [StorageChange], outbox: Bool, for storage: AnyObject) {
        guard !changes.isEmpty || outbox else { return }
        guard let hub = hubs.withLock({ $0[ObjectIdentifier(storage)] }) else { return }
        for subscriber in hub.subscribers.withLock({ Array($0.values) }) { subscriber(changes, outbox) }
    }

    /// Calls `handler` after every committed write to `storage` until the returned token is passed
    /// to ``unsubscribe(_:from:)``.
    static func subscribe(
        _ storage: AnyObject, _ handler: @escaping @Sendable ([StorageChange], Bool) -> Void
    ) -> UUID {
        let token = UUID.randomV4()
        hubs.withLock { hubs in
            let hub = hubs[ObjectIdentifier(storage)] ?? Hub()
            hubs[ObjectIdentifier(storage)] = hub
            hub.subscribers.withLock { $0[token] = handler }
        }
        return token
    }

    /// Stops a subscription; the storage leaves the registry with its last subscriber.
    static func unsubscribe(_ token: UUID, from key: ObjectIdentifier) {
        hubs.withLock { hubs in
            guard let hub = hubs[key] else { return }
            let empty = hub.subscribers.withLock { subscribers in
                subscribers.removeValue(forKey: token)
                return subscribers.isEmpty
            }
            if empty { hubs[key] = nil }
        }
    }
}

extension Storage {
    /// Every committed change to `collection` made through this storage object (local writes,
    /// pull pages, forwarder answers, other repositories on it), as it happens. The stream ends
    /// when the consuming task ends; a consumer that falls behind keeps the newest 1,024 changes.
    public func changes(collection: String) -> AsyncStream<StorageChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: StorageChange.self, bufferingPolicy: .bufferingNewest(1024))
        let object = self as AnyObject
        let token = StorageChanges.subscribe(object) { changes, _ in
            for change in changes where change.collection == collection { continuation.yield(change) }
        }
        let key = ObjectIdentifier(object)
        continuation.onTermination = { _ in StorageChanges.unsubscribe(token, from: key) }
        return stream
    }

    /// A tick after every committed write that touches `collection` or (with `outbox`) the
    /// outbox; bursts coalesce into one tick.
    func ticks(collection: String?, outbox: Bool) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let object = self as AnyObject
        let token = StorageChanges.subscribe(object) { changes, outboxChanged in
            if (outbox && outboxChanged) || changes.contains(where: { $0.collection == collection }) {
                continuation.yield()
            }
        }
        let key = ObjectIdentifier(object)
        continuation.onTermination = { _ in StorageChanges.unsubscribe(token, from: key) }
        return stream
    }
}
