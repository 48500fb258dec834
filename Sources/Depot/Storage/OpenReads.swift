import Foundation

/// The reads of a server in flight in this process, by store, and the removals of delivery marks
/// tried: what tells which marks no read needs any more (``DeliveryLog``).
///
/// A mark makes a read that began before it keep its older copy off the entity. Once every read
/// that began before it has ended, no read ever asks about it again (later reads begin past it),
/// and it can go. A store is named by the id its delivery sequence row keeps, so every wrapper or
/// connection of one store is one store here.
final class OpenReads: Sendable {
    /// The registry of this process.
    static let shared = OpenReads()

    /// One read in flight: registered when made, gone when its last copy goes (a ``DeliveryLog/Reader``
    /// holds it for as long as the read can merge a copy).
    final class Token: Sendable {
        let number: Int
        private let registry: OpenReads

        fileprivate init(number: Int, registry: OpenReads) {
            self.number = number
            self.registry = registry
        }

        deinit { registry.close(number) }
    }

    private struct State {
        var lastNumber = 0
        /// Reads whose start is not known yet, with their store when known from an earlier read
        /// of the same storage object: while one is, no mark of its store (of any store, when
        /// not known) goes.
        var starting: [Int: String?] = [:]
        /// The store each storage object (a class instance) was last seen to be, so that a read
        /// starting on it holds back the removals of that store only. Forgotten whole past
        /// ``namesLimit`` objects.
        var names: [ObjectIdentifier: String] = [:]
        /// Reads in flight, by number: their store ("" for one that could not be named) and start.
        var reads: [Int: (store: String, start: Int64)] = [:]
        /// The last removal tried per store: the floor it used and the marks the store held then.
        var tried: [String: (floor: Int64, marks: Int64)] = [:]
    }

    private let state = LockedValue(State())

    /// How many storage objects' stores are remembered at most.
    private static let namesLimit = 256

    /// The key of `storage` when it is an object (every store of Depot's is).
    private static func key(_ storage: Storage) -> ObjectIdentifier? {
        type(of: storage) is AnyObject.Type ? ObjectIdentifier(storage as AnyObject) : nil
    }

    /// Registers a read of `storage` about to read its delivery sequence: no mark of its store
    /// goes until ``started(_:on:store:at:)`` says where it began.
    func open(_ storage: Storage) -> Token {
        let key = Self.key(storage)
        return state.withLock { state in
            state.lastNumber += 1
            state.starting[state.lastNumber] = .some(key.flatMap { state.names[$0] })
            return Token(number: state.lastNumber, registry: self)
        }
    }

    /// Says that read `token` of `storage` began at delivery sequence `start` of `store` (""
    /// for a store that could not be named).
    func started(_ token: Token, on storage: Storage, store: String, at start: Int64) {
        let key = Self.key(storage)
        state.withLock { state in
            state.starting[token.number] = nil
            state.reads[token.number] = (store, start)
            guard let key, !store.isEmpty else { return }
            if state.names.count >= Self.namesLimit { state.names = [:] }
            state.names[key] = store
        }
    }

    /// Forgets read `number`.
    private func close(_ number: Int) {
        state.withLock { state in
            state.starting[number] = nil
            state.reads[number] = nil
        }
    }

    /// The newest mark of `store` no read in flight in this process needs: the oldest start of
    /// its reads, or `sequence` (the store's sequence, read before this call) when none is open.
    /// Nil while a read of the store (or of a store not known yet) is starting, or when a removal
    /// would find nothing new to remove: the last one tried this floor and the store's `marks`
    /// have not grown by `minimum` since.
    func removalFloor(store: String, upTo sequence: Int64, marks: Int64, minimum: Int64) -> Int64? {
        state.withLock { state in
            guard !state.starting.values.contains(where: { $0 == nil || $0 == store }) else { return nil }
            var floor = sequence
            for read in state.reads.values where read.store == store || read.store.isEmpty {
                floor = min(floor, read.start)
            }
            if let tried = state.tried[store], floor <= tried.floor, marks < tried.marks + minimum { return nil }
            state.tried[store] = (floor, marks)
            return floor
        }
    }
}
