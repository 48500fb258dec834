import Foundation

/// A local store of entities per collection, with their sync state and last server snapshot.
/// ``InMemoryStorage`` lives here; `DepotSQLite` adds `SQLiteStorage`. Every call returns a
/// promise; `await` its `value`.
///
/// - Throws (in the promises): `DepotError` `.storage` when the store fails, `.conflict` when
///   ``insert(_:)`` finds the id taken.
public protocol Storage: Sendable {
    /// Adds a record; rejects with `.conflict` if the collection already has its id.
    func insert(_ record: StoredRecord) -> Promise<Void>
    /// Adds or replaces every record, all in one transaction.
    func upsert(_ records: [StoredRecord]) -> Promise<Void>
    /// Adds or replaces every record, all in one transaction, from JSON text already written: the
    /// SQLite store binds it as it is. A default parses each record and calls `upsert(_:)`.
    func upsert(encoded records: [EncodedRecord]) -> Promise<Void>
    /// The record with `id`, or nil (records deleted locally included).
    func fetch(collection: String, id: String) -> Promise<StoredRecord?>
    /// The records matching `criteria`, in its order.
    func fetch(collection: String, matching criteria: Criteria) -> Promise<[StoredRecord]>
    /// Up to `limit` records of `collection` whose sync state is one of `states`, ordered by id
    /// (bytewise), only ids after `id` when given: walks unsynced (or synced) records in bounded
    /// pages. A default reads the whole collection; stores with an index on the state override it.
    func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        -> Promise<[StoredRecord]>
    /// Removes the record with `id`; fulfils with whether there was one.
    func delete(collection: String, id: String) -> Promise<Bool>
    /// Removes every record of `collection`.
    func deleteAll(collection: String) -> Promise<Void>
    /// Runs `body` as one atomic read-modify-write: what it writes commits together when it
    /// returns, nothing is written if it throws, and no other write interleaves. The promise
    /// fulfils with what `body` returned, or rejects with its error (or `.storage`).
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) -> Promise<Output>
    /// The outbox entries `query` selects, by sequence. Entries are written only inside a
    /// ``transaction(_:)``, together with the records they describe.
    func outbox(_ query: OutboxQuery) -> Promise<[OutboxEntry]>
    /// How many outbox entries `query` selects (its limit ignored).
    func outboxCount(_ query: OutboxQuery) -> Promise<Int>
}

extension Storage {
    /// Adds or replaces one record.
    public func upsert(_ record: StoredRecord) -> Promise<Void> { upsert([record]) }

    /// Parses every record and stores them with `upsert(_:)`: what a store without its
    /// own encoded path does (``InMemoryStorage`` among them), so the records read back the same.
    public func upsert(encoded records: [EncodedRecord]) -> Promise<Void> {
        do {
            return upsert(try records.map { try $0.decoded() })
        } catch {
            return Promise(error: error)
        }
    }
}

/// Evaluates ``Criteria`` in Swift, with SQLite's rules: `InMemoryStorage` uses it, and the
/// SQLite store must answer the same.
public enum CriteriaEvaluator {
    /// True when `object` meets every filter of `criteria`.
    public static func matches(_ object: JSONObject, _ criteria: Criteria) -> Bool {
        criteria.filters.allSatisfy { key, expected in
            let actual = object[key] ?? .null
            if expected == .null { return actual == .null }
            guard let left = scalar(actual), let right = scalar(expected) else { return false }
            return left == right
        }
    }

    /// `records` filtered, sorted and limited as `criteria` says.
    public static func apply(_ criteria: Criteria, to records: [StoredRecord]) -> [StoredRecord] {
        var selected = records.filter {
            (criteria.includeDeleted || $0.syncState != .deleted) && matches($0.object, criteria)
        }
        selected.sort { left, right in
            for sort in criteria.sort {
                let a = scalar(left.object[sort.key] ?? .null)
                let b = scalar(right.object[sort.key] ?? .null)
                if a == b { continue }
                return sort.ascending ? Scalar.less(a, b) : Scalar.less(b, a)
            }
            return left.id < right.id
        }
        if let limit = criteria.limit { selected = Array(selected.prefix(limit)) }
        return selected
    }

    /// A JSON scalar as SQLite's json_extract sees it: bools are integers.
    enum Scalar: Equatable {
        case number(Double)
        case text(String)

        /// SQLite's order: NULL (nil) < numbers < text.
        static func less(_ left: Scalar?, _ right: Scalar?) -> Bool {
            switch (left, right) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case (.number(let a)?, .number(let b)?): return a < b
            case (.number?, .text?): return true
            case (.text?, .number?): return false
            case (.text(let a)?, .text(let b)?): return a.utf8.lexicographicallyPrecedes(b.utf8)
            }
        }
    }

    static func scalar(_ json: JSON) -> Scalar? {
        switch json {
        case .bool(let flag): .number(flag ? 1 : 0)
        case .integer(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .string(let text): .text(text)
        case .null, .array, .object: nil
        }
    }
}
