/// Which outbox entries a ``OutboxStorage/outbox(_:)`` read returns, in ``OutboxEntry/sequence`` order.
public struct OutboxQuery: Sendable, Hashable {
    /// Which entries, by whether the server refused them.
    public enum Selection: Sendable, Hashable {
        /// Entries still to send (including ones waiting for a retry).
        case pending
        /// Entries the server refused for good (``OutboxEntry/rejection`` set).
        case rejected
        /// Both.
        case all
    }

    /// The collections to read; nil for every collection.
    public var collections: Set<String>?
    /// Only the entries of the entity with this id; nil for every entity.
    public var entityID: String?
    /// Pending, rejected or all entries.
    public var selection: Selection
    /// Only entries whose sequence is above this one; nil for from the start.
    public var after: Int64?
    /// The most entries returned; nil for all.
    public var limit: Int?

    /// Makes a query.
    public init(
        collections: Set<String>? = nil, entityID: String? = nil, selection: Selection = .pending, after: Int64? = nil,
        limit: Int? = nil
    ) {
        self.collections = collections
        self.entityID = entityID
        self.selection = selection
        self.after = after
        self.limit = limit
    }

    /// Whether `entry` is one this query selects (ignoring ``limit``).
    public func matches(_ entry: OutboxEntry) -> Bool {
        if let collections, !collections.contains(entry.collection) { return false }
        if let entityID, entry.entityID != entityID { return false }
        if let after, entry.sequence <= after { return false }
        switch selection {
        case .pending: return !entry.isRejected
        case .rejected: return entry.isRejected
        case .all: return true
        }
    }
}
