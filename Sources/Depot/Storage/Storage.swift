import Foundation

/// A local store of entities per collection, with their sync state, last server snapshot and
/// outbox: the three capabilities Depot's repositories, synchronizer and forwarder use, combined.
/// ``InMemoryStorage`` lives here; `DepotSQLite` adds `SQLiteStorage` and `DepotPostgres` (trait
/// `Postgres`) adds `PostgresStorage`. A new store adopts ``RecordStorage``, ``OutboxStorage`` and
/// ``TransactionalStorage``; ``changes(collection:)`` (the change feed) comes with it.
///
/// Every method is `async`; the `Promise` forms are on repositories only.
///
/// - Throws: `DepotError` `.storage` when the store fails, `.conflict` when
///   ``RecordStorage/insert(_:)`` finds the id taken.
public protocol Storage: RecordStorage, OutboxStorage, TransactionalStorage {}

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
