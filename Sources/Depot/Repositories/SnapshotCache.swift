/// The server's last answer per entity id, with its `ETag`: what a PATCH is diffed against and
/// what `If-Match` sends. Thread-safe; keeps at most `capacity` entries, dropping the least
/// recently used one to make room. Every operation is O(1).
///
/// ```swift
/// let snapshots = SnapshotCache(capacity: 500)
/// snapshots.remember(["id": "1", "text": "hi"], etag: "\"1-7\"", for: "1")
/// if let snapshot = snapshots.snapshot(for: "1") {
///     print(snapshot.json, snapshot.strongETag ?? "no If-Match")
/// }
/// snapshots.forget("1")
/// ```
public final class SnapshotCache: Sendable {
    /// What the server last answered for one entity.
    public struct Snapshot: Sendable, Hashable {
        /// The server's answer (the entity's JSON).
        public var json: JSON
        /// The `ETag` that came with it, exactly as received (weak or strong); nil when none came.
        public var etag: String?

        /// Makes a snapshot.
        public init(json: JSON, etag: String? = nil) {
            self.json = json
            self.etag = etag
        }

        /// The ETag when it is a strong one (fit for `If-Match`); nil when there is none or it is
        /// weak (`W/"…"`), since `If-Match` compares strongly and a weak tag never matches.
        public var strongETag: String? {
            guard let etag, ETag.isStrong(etag) else { return nil }
            return etag
        }
    }

    /// The most entries kept.
    public let capacity: Int
    private let entries: LockedValue<LRUDictionary<String, Snapshot>>

    /// Makes an empty cache.
    ///
    /// - Parameter capacity: the most entries kept; must be positive (a precondition).
    public init(capacity: Int = 1_000) {
        precondition(capacity > 0, "SnapshotCache capacity must be positive, not \(capacity)")
        self.capacity = capacity
        entries = LockedValue(LRUDictionary(capacity: capacity))
    }

    /// The snapshot for entity `id`, which becomes the most recently used; nil when none is kept.
    public func snapshot(for id: String) -> Snapshot? {
        entries.withLock { $0.value(for: id) }
    }

    /// Whether a snapshot for `id` is kept, without changing which is the most recently used.
    public func contains(_ id: String) -> Bool {
        entries.withLock { $0.peek(id) != nil }
    }

    /// Keeps `json` (and `etag`) as the server's last answer for entity `id`, replacing what was
    /// kept for it; when the cache is full and `id` is new, the least recently used entry goes.
    ///
    /// - Parameters:
    ///   - json: the server's answer.
    ///   - etag: the answer's `ETag` header, if it had one.
    ///   - id: the entity's id.
    public func remember(_ json: JSON, etag: String? = nil, for id: String) {
        entries.withLock { _ = $0.setValue(Snapshot(json: json, etag: etag), for: id) }
    }

    /// Keeps a list's copy of entity `id` (which carries no `ETag`): the `ETag` kept with the same
    /// JSON stays, so a list read does not cost the next write its `If-Match`.
    func rememberListCopy(_ json: JSON, for id: String) {
        entries.withLock { entries in
            let etag = entries.peek(id).flatMap { $0.json == json ? $0.etag : nil }
            _ = entries.setValue(Snapshot(json: json, etag: etag), for: id)
        }
    }

    /// Forgets the snapshot of entity `id` (after a delete).
    ///
    /// - Returns: the snapshot that was kept, if any.
    @discardableResult
    public func forget(_ id: String) -> Snapshot? {
        entries.withLock { $0.removeValue(for: id) }
    }

    /// Forgets every snapshot.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// The number of snapshots kept.
    public var count: Int {
        entries.withLock { $0.count }
    }

    /// The ids kept, most recently used first (the last one goes next when the cache is full).
    public var ids: [String] {
        entries.withLock { $0.keys }
    }
}
