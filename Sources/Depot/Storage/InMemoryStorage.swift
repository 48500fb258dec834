import Foundation

/// A ``Storage`` in memory: for tests, previews and caches that need not survive a restart.
public final class InMemoryStorage: Storage {
    let contents = LockedValue(Contents())
    /// Held by every write, and by a transaction for its whole body, so writes never interleave;
    /// reads take only `contents`' lock, briefly, so a transaction body may read the store.
    let writer = Lock()

    /// Everything the store holds, under one lock so a transaction covers records and outbox.
    struct Contents {
        var collections: [String: [String: StoredRecord]] = [:]
        var outbox = Outbox()
        /// Set by ``erase(force:)``: every later call rejects.
        var erased = false
    }

    /// Makes an empty store.
    public init() {}

    /// Adds a record; rejects with `.conflict` if the id is taken.
    public func insert(_ record: StoredRecord) async throws {
        let inserted = writer.withLock {
            contents.withLock { contents -> Bool? in
                guard !contents.erased else { return nil }
                guard contents.collections[record.collection]?[record.id] == nil else { return false }
                contents.collections[record.collection, default: [:]][record.id] = record
                return true
            }
        }
        guard let inserted else { throw Self.erasedError("insert into \(record.collection)") }
        if inserted { publish { $0.changed(record.collection, record.id) } }
        if inserted { return }
        throw DepotError(.conflict, "\(record.collection) already has a record with id \(record.id)")
    }

    /// Adds or replaces every record at once.
    public func upsert(_ records: [StoredRecord]) async throws {
        let written = writer.withLock {
            contents.withLock { contents in
                guard !contents.erased else { return false }
                for record in records { contents.collections[record.collection, default: [:]][record.id] = record }
                return true
            }
        }
        guard written else { throw Self.erasedError("upsert \(records.count) records") }
        publish { recorder in for record in records { recorder.changed(record.collection, record.id) } }
    }

    /// The record with `id`, or nil.
    public func fetch(collection: String, id: String) async throws -> StoredRecord? {
        try read("fetch \(collection)/\(id)") { $0.collections[collection]?[id] }
    }

    /// The records matching `criteria`.
    public func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        do { try criteria.validate() } catch { throw error }
        let records = contents.withLock { $0.erased ? nil : Array(($0.collections[collection] ?? [:]).values) }
        guard let records else { throw Self.erasedError("query \(collection)") }
        return CriteriaEvaluator.apply(criteria, to: records)
    }

    /// Removes the record with `id`.
    public func delete(collection: String, id: String) async throws -> Bool {
        let removed = writer.withLock {
            contents.withLock { $0.erased ? nil : $0.collections[collection]?.removeValue(forKey: id) != nil }
        }
        guard let removed else { throw Self.erasedError("delete \(collection)/\(id)") }
        if removed { publish { $0.deleted(collection, id) } }
        return removed
    }

    /// Removes every record of `collection`.
    public func deleteAll(collection: String) async throws {
        let cleared = writer.withLock {
            contents.withLock { contents in
                guard !contents.erased else { return false }
                contents.collections.removeValue(forKey: collection)
                return true
            }
        }
        guard cleared else { throw Self.erasedError("delete all of \(collection)") }
        publish { $0.cleared(collection) }
    }

    /// Runs `body` as one transaction: its writes are kept aside and applied together when it
    /// returns (nothing is applied if it throws). Other writes wait for it; reads go on and see
    /// the store as it was before the transaction.
    public func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        let output = try writer.withLock {
            // Erasing takes the writer lock, so the store stays as it is checked here until the commit.
            if contents.withLock({ $0.erased }) { throw Self.erasedError("run a transaction") }
            let transaction = Transaction(contents)
            let output = try body(transaction)
            contents.withLock { transaction.commit(into: &$0) }
            return (output, transaction)
        }
        publish { output.1.record(into: $0) }
        return output.0
    }

    /// Tells this store's observers what a committed write changed.
    private func publish(_ fill: (ChangeRecorder) -> Void) {
        let recorder = ChangeRecorder()
        fill(recorder)
        recorder.publish(for: self)
    }

    /// The outbox entries `query` selects, by sequence.
    public func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] {
        try read("read the outbox") { $0.outbox.entries(query) }
    }

    /// How many outbox entries `query` selects.
    public func outboxCount(_ query: OutboxQuery) async throws -> Int {
        var unlimited = query
        unlimited.limit = nil
        return try read("count the outbox") { $0.outbox.entries(unlimited).count }
    }

    /// `body`'s answer on the contents, under their lock; `.storage` once the store is erased.
    private func read<Value: Sendable>(_ what: String, _ body: (Contents) -> Value) throws -> Value {
        let value: Value? = contents.withLock { $0.erased ? nil : body($0) }
        guard let value else { throw Self.erasedError(what) }
        return value
    }

    /// The error a call on an erased store rejects with.
    static func erasedError(_ what: String) -> DepotError {
        DepotError(.storage, "cannot \(what): the store was erased")
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
    }

    /// A transaction's view: its own writes, kept aside, over the store as committed (which no
    /// other write changes while the transaction runs, since it holds the writer lock).
    private final class Transaction: ListingStorageTransaction {
        private let contents: LockedValue<Contents>
        /// collection → id → the record written, or nil for deleted.
        private var records: [String: [String: StoredRecord?]] = [:]
        /// sequence → the entry written, or nil for removed.
        private var entries: [Int64: OutboxEntry?] = [:]
        /// collection, entity id → the sequences this transaction wrote for it (so finding an
        /// entity's entries costs its own entries, not every entry of a large transaction).
        private var written: [Outbox.EntityKey: Set<Int64>] = [:]
        private var lastSequence: Int64?

        init(_ contents: LockedValue<Contents>) { self.contents = contents }

        func fetch(collection: String, id: String) -> StoredRecord? {
            if let written = records[collection]?[id] { return written }
            return contents.withLock { $0.collections[collection]?[id] }
        }

        func upsert(_ record: StoredRecord) {
            records[record.collection, default: [:]][record.id] = .some(record)
        }

        func delete(collection: String, id: String) -> Bool {
            guard fetch(collection: collection, id: id) != nil else { return false }
            records[collection, default: [:]][id] = .some(nil)
            return true
        }

        func records(collection: String) -> [StoredRecord] {
            var all = contents.withLock { $0.collections[collection] ?? [:] }
            for (id, record) in records[collection] ?? [:] { all[id] = record }
            return all.values.sorted { $0.id < $1.id }
        }

        func outbox(_ query: OutboxQuery) -> [OutboxEntry] {
            var unlimited = query
            unlimited.limit = nil
            var all = Dictionary(
                uniqueKeysWithValues: contents.withLock { $0.outbox.entries(unlimited) }.map { ($0.sequence, $0) })
            for (sequence, entry) in entries {
                all[sequence] = entry.flatMap { unlimited.matches($0) ? $0 : nil }
            }
            let selected = all.values.sorted { $0.sequence < $1.sequence }
            return query.limit.map { Array(selected.prefix($0)) } ?? selected
        }

        func outboxEntries(collection: String, entityID: String) -> [OutboxEntry] {
            var sequences = Set(
                contents.withLock { $0.outbox.sequences(collection: collection, entityID: entityID) })
            sequences.formUnion(written[Outbox.EntityKey(collection: collection, entityID: entityID)] ?? [])
            return sequences.sorted().compactMap { sequence in
                guard let entry = outboxEntry(sequence: sequence),
                    entry.collection == collection, entry.entityID == entityID
                else { return nil }
                return entry
            }
        }

        func outboxEntry(sequence: Int64) -> OutboxEntry? {
            if let written = entries[sequence] { return written }
            return contents.withLock { contents in
                contents.outbox.index(of: sequence).map { contents.outbox.entries[$0] }
            }
        }

        func appendOutbox(_ entry: OutboxEntry) -> Int64 {
            let sequence = (lastSequence ?? contents.withLock { $0.outbox.lastSequence }) + 1
            lastSequence = sequence
            var entry = entry
            entry.sequence = sequence
            entries[sequence] = .some(entry)
            written[Outbox.EntityKey(collection: entry.collection, entityID: entry.entityID), default: []].insert(
                sequence)
            return sequence
        }

        func replaceOutbox(_ entry: OutboxEntry) -> Bool {
            guard outboxEntry(sequence: entry.sequence) != nil else { return false }
            entries[entry.sequence] = .some(entry)
            written[Outbox.EntityKey(collection: entry.collection, entityID: entry.entityID), default: []].insert(
                entry.sequence)
            return true
        }

        func removeOutbox(sequence: Int64) -> Bool {
            guard outboxEntry(sequence: sequence) != nil else { return false }
            entries[sequence] = .some(nil)
            return true
        }

        /// Notes every record and outbox entry this transaction wrote in `recorder`.
        func record(into recorder: ChangeRecorder) {
            for (collection, written) in records {
                for (id, record) in written {
                    if record == nil { recorder.deleted(collection, id) } else { recorder.changed(collection, id) }
                }
            }
            if !entries.isEmpty { recorder.outbox() }
        }

        /// Applies every write to `contents`, under its lock: the moment the transaction commits.
        func commit(into contents: inout Contents) {
            for (collection, written) in records {
                for (id, record) in written {
                    contents.collections[collection, default: [:]][id] = record
                }
                if contents.collections[collection]?.isEmpty == true { contents.collections[collection] = nil }
            }
            // Ascending, so new entries (above every sequence stored) append in order.
            for (sequence, entry) in entries.sorted(by: { $0.key < $1.key }) {
                let index = contents.outbox.index(of: sequence)
                if let index {
                    if let entry {
                        contents.outbox.replace(at: index, with: entry)
                    } else {
                        contents.outbox.remove(at: index)
                    }
                } else if let entry {
                    contents.outbox.append(entry)
                }
            }
            if let lastSequence { contents.outbox.lastSequence = max(contents.outbox.lastSequence, lastSequence) }
        }
    }
}
