import Foundation

/// A ``Storage`` in memory: for tests, previews and caches that need not survive a restart.
public final class InMemoryStorage: Storage {
    private let contents = LockedValue(Contents())

    /// Everything the store holds, under one lock so a transaction covers records and outbox.
    private struct Contents {
        var collections: [String: [String: StoredRecord]] = [:]
        var outbox = Outbox()
    }

    /// Makes an empty store.
    public init() {}

    /// Adds a record; rejects with `.conflict` if the id is taken.
    public func insert(_ record: StoredRecord) -> Promise<Void> {
        let inserted = contents.withLock { contents in
            guard contents.collections[record.collection]?[record.id] == nil else { return false }
            contents.collections[record.collection, default: [:]][record.id] = record
            return true
        }
        if inserted { return Promise(()) }
        return Promise(error: DepotError(.conflict, "\(record.collection) already has a record with id \(record.id)"))
    }

    /// Adds or replaces every record at once.
    public func upsert(_ records: [StoredRecord]) -> Promise<Void> {
        contents.withLock { contents in
            for record in records { contents.collections[record.collection, default: [:]][record.id] = record }
        }
        return Promise(())
    }

    /// The record with `id`, or nil.
    public func fetch(collection: String, id: String) -> Promise<StoredRecord?> {
        Promise(contents.withLock { $0.collections[collection]?[id] })
    }

    /// The records matching `criteria`.
    public func fetch(collection: String, matching criteria: Criteria) -> Promise<[StoredRecord]> {
        do { try criteria.validate() } catch { return Promise(error: error) }
        let records = contents.withLock { Array(($0.collections[collection] ?? [:]).values) }
        return Promise(CriteriaEvaluator.apply(criteria, to: records))
    }

    /// Removes the record with `id`.
    public func delete(collection: String, id: String) -> Promise<Bool> {
        Promise(contents.withLock { $0.collections[collection]?.removeValue(forKey: id) != nil })
    }

    /// Removes every record of `collection`.
    public func deleteAll(collection: String) -> Promise<Void> {
        contents.withLock { _ = $0.collections.removeValue(forKey: collection) }
        return Promise(())
    }

    /// Runs `body` with the store locked; if it throws, every write it made is undone.
    public func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) -> Promise<Output> {
        do {
            let output = try contents.withLock { contents in
                // The transaction takes the only references, so its writes do not copy the store.
                let transaction = Transaction(collections: contents.collections, outbox: contents.outbox)
                contents.collections = [:]
                contents.outbox = Outbox()
                defer { (contents.collections, contents.outbox) = (transaction.collections, transaction.outbox) }
                do {
                    return try body(transaction)
                } catch {
                    transaction.rollBack()
                    throw error
                }
            }
            return Promise(output)
        } catch {
            return Promise(error: error)
        }
    }

    /// The outbox entries `query` selects, by sequence.
    public func outbox(_ query: OutboxQuery) -> Promise<[OutboxEntry]> {
        Promise(contents.withLock { $0.outbox.entries(query) })
    }

    /// How many outbox entries `query` selects.
    public func outboxCount(_ query: OutboxQuery) -> Promise<Int> {
        var unlimited = query
        unlimited.limit = nil
        return Promise(contents.withLock { $0.outbox.entries(unlimited).count })
    }

    /// The outbox: entries in sequence order (appends go at the end), and the last sequence given.
    struct Outbox {
        private(set) var entries: [OutboxEntry] = []
        var lastSequence: Int64 = 0
        /// collection, entity id → the sequences of its entries, ascending.
        private var byEntity: [EntityKey: [Int64]] = [:]

        struct EntityKey: Hashable {
            var collection: String
            var entityID: String
        }

        func sequences(collection: String, entityID: String) -> [Int64] {
            byEntity[EntityKey(collection: collection, entityID: entityID)] ?? []
        }

        mutating func append(_ entry: OutboxEntry) {
            entries.append(entry)
            byEntity[EntityKey(collection: entry.collection, entityID: entry.entityID), default: []].append(
                entry.sequence)
        }

        mutating func replace(at index: Int, with entry: OutboxEntry) {
            let old = entries[index]
            if old.collection != entry.collection || old.entityID != entry.entityID {
                removeFromIndex(old)
                addToIndex(entry)
            }
            entries[index] = entry
        }

        @discardableResult
        mutating func remove(at index: Int) -> OutboxEntry {
            let entry = entries.remove(at: index)
            removeFromIndex(entry)
            return entry
        }

        private mutating func addToIndex(_ entry: OutboxEntry) {
            let key = EntityKey(collection: entry.collection, entityID: entry.entityID)
            byEntity[key, default: []].append(entry.sequence)
            byEntity[key]?.sort()
        }

        private mutating func removeFromIndex(_ entry: OutboxEntry) {
            let key = EntityKey(collection: entry.collection, entityID: entry.entityID)
            byEntity[key]?.removeAll { $0 == entry.sequence }
            if byEntity[key]?.isEmpty == true { byEntity[key] = nil }
        }

        func index(of sequence: Int64) -> Int? {
            var (low, high) = (0, entries.count)
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].sequence < sequence { low = middle + 1 } else { high = middle }
            }
            return low < entries.count && entries[low].sequence == sequence ? low : nil
        }

        func entries(_ query: OutboxQuery) -> [OutboxEntry] {
            var selected: [OutboxEntry] = []
            var start = 0
            if let after = query.after {
                var (low, high) = (0, entries.count)
                while low < high {
                    let middle = (low + high) / 2
                    if entries[middle].sequence <= after { low = middle + 1 } else { high = middle }
                }
                start = low
            }
            for entry in entries[start...] where query.matches(entry) {
                if let limit = query.limit, selected.count >= limit { break }
                selected.append(entry)
            }
            return selected
        }

        /// Puts `entry` back where its sequence belongs (undoing a removal).
        mutating func restore(_ entry: OutboxEntry) {
            var (low, high) = (0, entries.count)
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].sequence < entry.sequence { low = middle + 1 } else { high = middle }
            }
            entries.insert(entry, at: low)
            addToIndex(entry)
        }
    }

    /// The store while a transaction holds the lock, with what it replaced, to undo on a throw.
    private final class Transaction: StorageTransaction {
        var collections: [String: [String: StoredRecord]]
        var outbox: Outbox
        private var undo: [Undo] = []

        private enum Undo {
            case record(collection: String, id: String, record: StoredRecord?)
            case outboxEntry(sequence: Int64, entry: OutboxEntry?)
            case lastSequence(Int64)
        }

        init(collections: [String: [String: StoredRecord]], outbox: Outbox) {
            self.collections = collections
            self.outbox = outbox
        }

        func fetch(collection: String, id: String) -> StoredRecord? { collections[collection]?[id] }

        func upsert(_ record: StoredRecord) {
            undo.append(
                .record(
                    collection: record.collection, id: record.id, record: collections[record.collection]?[record.id]))
            collections[record.collection, default: [:]][record.id] = record
        }

        func delete(collection: String, id: String) -> Bool {
            let removed = collections[collection]?.removeValue(forKey: id)
            if let removed { undo.append(.record(collection: collection, id: id, record: removed)) }
            return removed != nil
        }

        func outboxEntries(collection: String, entityID: String) -> [OutboxEntry] {
            outbox.sequences(collection: collection, entityID: entityID).compactMap(outboxEntry(sequence:))
        }

        func outboxEntry(sequence: Int64) -> OutboxEntry? {
            outbox.index(of: sequence).map { outbox.entries[$0] }
        }

        func appendOutbox(_ entry: OutboxEntry) -> Int64 {
            undo.append(.lastSequence(outbox.lastSequence))
            outbox.lastSequence += 1
            var entry = entry
            entry.sequence = outbox.lastSequence
            outbox.append(entry)
            undo.append(.outboxEntry(sequence: entry.sequence, entry: nil))
            return entry.sequence
        }

        func replaceOutbox(_ entry: OutboxEntry) -> Bool {
            guard let index = outbox.index(of: entry.sequence) else { return false }
            undo.append(.outboxEntry(sequence: entry.sequence, entry: outbox.entries[index]))
            outbox.replace(at: index, with: entry)
            return true
        }

        func removeOutbox(sequence: Int64) -> Bool {
            guard let index = outbox.index(of: sequence) else { return false }
            undo.append(.outboxEntry(sequence: sequence, entry: outbox.remove(at: index)))
            return true
        }

        func rollBack() {
            for step in undo.reversed() {
                switch step {
                case .record(let collection, let id, let record):
                    collections[collection, default: [:]][id] = record
                case .outboxEntry(let sequence, let entry):
                    if let index = outbox.index(of: sequence) { outbox.remove(at: index) }
                    if let entry { outbox.restore(entry) }
                case .lastSequence(let sequence):
                    outbox.lastSequence = sequence
                }
            }
            undo = []
        }
    }
}
