import Foundation

/// Which entities of a storage object took a server's answer to a write (a delivery) while a read
/// of the server was out, so the read's older view never overwrites the newer answer: the rule
/// "a pull page (or a read) whose request began before a delivery never overwrites it".
///
/// A reader calls ``beginRead(_:)`` before its first request and ``endRead()`` after its last
/// merge; a road that stores an answer calls ``noteDelivery(_:collection:ids:)`` inside the
/// transaction that stores it, so the note and the reader's merge transaction are ordered by the
/// store. Deliveries are kept only while a reader that began before them is out, so the log holds
/// no more than the answers stored during the longest read in flight. It lives in this process and
/// for one storage object: reads and writes through other objects over the same file are not
/// seen (a row they deliver meanwhile is corrected by the next pull).
final class DeliveryLog: Sendable {
    private struct State {
        var clock: UInt64 = 0
        /// The start of every read in flight: its mark → how many reads began at it.
        var readers: [UInt64: Int] = [:]
        /// The last delivery mark of each entity (`collection` + `\u{0}` + id).
        var delivered: [String: UInt64] = [:]
    }

    /// A read in flight: its start mark, to ask what was delivered since.
    struct Reader: Sendable {
        fileprivate let log: DeliveryLog
        fileprivate let start: UInt64

        /// Whether an answer to a write of `id` was stored since this read began.
        func deliveredSince(collection: String, id: String) -> Bool {
            log.state.withLock { ($0.delivered[DeliveryLog.key(collection, id)] ?? 0) > start }
        }

        /// Ends the read: deliveries only it was watching are forgotten.
        func endRead() { log.end(start) }
    }

    /// A read that may or may not go to the server (a repository's `read` under its strategy):
    /// ``begin(_:)`` right before its request, ``end()`` once it has settled, whichever way.
    final class Scope: Sendable {
        private let reader = LockedValue<Reader?>(nil)

        /// Makes a scope with no read begun.
        init() {}

        /// Begins the read of `storage`'s server (once).
        func begin(_ storage: Storage) {
            reader.withLock { $0 = $0 ?? DeliveryLog.beginRead(storage) }
        }

        /// The read begun, if any.
        var current: Reader? { reader.withLock { $0 } }

        /// Ends the read begun, if any.
        func end() {
            reader.withLock { reader in
                reader?.endRead()
                reader = nil
            }
        }
    }

    private let state = LockedValue(State())
    private let key: ObjectIdentifier

    /// The logs of storage objects with a read in flight.
    private static let all = LockedValue<[ObjectIdentifier: DeliveryLog]>([:])

    private init(key: ObjectIdentifier) { self.key = key }

    /// Starts a read of `storage`'s server: deliveries from now on are noted until it ends.
    static func beginRead(_ storage: Storage) -> Reader {
        let key = ObjectIdentifier(storage as AnyObject)
        return all.withLock { all in
            let log = all[key] ?? DeliveryLog(key: key)
            all[key] = log
            let start = log.state.withLock { state in
                state.readers[state.clock, default: 0] += 1
                return state.clock
            }
            return Reader(log: log, start: start)
        }
    }

    /// Notes that answers for `ids` of `collection` are being stored in `storage`; nothing when no
    /// read of it is in flight. Call it in the transaction that stores them.
    static func noteDelivery(_ storage: Storage, collection: String, ids: [String]) {
        let storageKey = ObjectIdentifier(storage as AnyObject)
        guard let log = all.withLock({ $0[storageKey] }) else { return }
        log.state.withLock { state in
            guard !state.readers.isEmpty else { return }
            state.clock += 1
            for id in ids { state.delivered[key(collection, id)] = state.clock }
        }
    }

    private static func key(_ collection: String, _ id: String) -> String { collection + "\u{0}" + id }

    private func end(_ start: UInt64) {
        Self.all.withLock { all in
            let empty = state.withLock { state in
                state.readers[start, default: 1] -= 1
                if state.readers[start] == 0 { state.readers[start] = nil }
                guard let oldest = state.readers.keys.min() else {
                    state.delivered = [:]
                    return true
                }
                state.delivered = state.delivered.filter { $0.value > oldest }
                return false
            }
            if empty, all[key] === self { all[key] = nil }
        }
    }
}
