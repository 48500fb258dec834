import Foundation

/// Where a stored entity stands with the server.
public enum SyncState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Same as the server's last answer (``StoredRecord/snapshot``).
    case synced
    /// Made locally; the server has not seen it.
    case created
    /// Changed locally since the server's last answer.
    case updated
    /// Deleted locally; the server still has it. Reads skip it.
    case deleted
}

/// One entity in a ``Storage``: its JSON, its sync state and the server's last answer for it.
public struct StoredRecord: Sendable, Hashable {
    /// The collection it belongs to, e.g. `"messages"`.
    public var collection: String
    /// Its id, as text.
    public var id: String
    /// The entity as JSON.
    public var object: JSONObject
    /// Where it stands with the server.
    public var syncState: SyncState
    /// The JSON the server last returned for it, as it came (fields the entity does not model
    /// included): what PATCH diffs against. Nil if never synced.
    public var snapshot: JSONObject?
    /// The `ETag` the server sent with ``snapshot``, sent back as `If-Match` on writes; nil if none.
    /// ``ETag/unknownVersion`` when the server's version is unknown (``isVersionUnknown``).
    public var etag: String?

    /// Whether the server's version of the record is unknown: a write's answer changed it without
    /// an `ETag` (a batch push's element, say), over a record whose `ETag` was known. The next
    /// update, PATCH or delete reads the server's copy first (`GET`) and goes under its `ETag` if
    /// that copy is still ``snapshot``; a copy another client changed meanwhile is a conflict, for
    /// the repository's ``ConflictPolicy`` (a remote-first write's caller gets `.conflict`).
    public var isVersionUnknown: Bool { etag == ETag.unknownVersion }

    /// Makes a record.
    public init(
        collection: String, id: String, object: JSONObject, syncState: SyncState, snapshot: JSONObject? = nil,
        etag: String? = nil
    ) {
        self.collection = collection
        self.id = id
        self.object = object
        self.syncState = syncState
        self.snapshot = snapshot
        self.etag = etag
    }
}

/// Which records a query returns: equality on top-level keys, then sort, then limit.
///
/// ```swift
/// Criteria(["author": "ann"], sort: [.descending("likes")], limit: 10)
/// ```
public struct Criteria: Sendable, Hashable {
    /// One sort key.
    public struct Sort: Sendable, Hashable {
        /// The top-level key.
        public var key: String
        /// Ascending (the default) or descending.
        public var ascending: Bool
        /// Ascending on `key`.
        public static func ascending(_ key: String) -> Sort { Sort(key: key, ascending: true) }
        /// Descending on `key`.
        public static func descending(_ key: String) -> Sort { Sort(key: key, ascending: false) }
    }

    /// Top-level key → scalar value the record must equal. `.null` matches null or a missing key.
    public var filters: [String: JSON]
    /// Sort keys, in order; records with equal keys are ordered by id. Order of values: null, then
    /// numbers (false/true as 0/1), then strings.
    public var sort: [Sort]
    /// The most records returned; nil for all.
    public var limit: Int?
    /// Whether records deleted locally (``SyncState/deleted``) are returned; false by default.
    public var includeDeleted: Bool

    /// Makes criteria. Any key works, quotes and backslashes included (stores bind it as a value,
    /// never splice it into SQL). What cannot be evaluated (a filter on an array or object, a
    /// negative limit) makes the query reject with `.invalidRequest`; see ``validate()``.
    public init(_ filters: [String: JSON] = [:], sort: [Sort] = [], limit: Int? = nil, includeDeleted: Bool = false) {
        self.filters = filters
        self.sort = sort
        self.limit = limit
        self.includeDeleted = includeDeleted
    }

    /// Checks that a store can evaluate these criteria; stores call it before every query.
    ///
    /// - Throws: `DepotError` `.invalidRequest` for a filter whose value is an array or an
    ///   object (criteria compare scalars) or a negative limit.
    public func validate() throws {
        for (key, value) in filters.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .array, .object:
                throw DepotError(
                    .invalidRequest,
                    "criteria compare scalars; the filter on \(key.debugDescription) is \(value.kindName)")
            default: continue
            }
        }
        if let limit, limit < 0 { throw DepotError(.invalidRequest, "criteria limit must not be negative (\(limit))") }
    }

    /// Every record of the collection, by id.
    public static let all = Criteria()

    /// Criteria from a query string's pairs: every value compared as a string.
    public init(query: [String: String]) {
        self.init(query.mapValues { JSON.string($0) })
    }
}
