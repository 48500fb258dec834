/// How a ``SynchronizableRepository`` synchronizes: batch size, pagination of the pull, pruning,
/// and the key the server echoes to match a batch reply to what was sent.
///
/// ```swift
/// SynchronizationConfiguration(batchSize: 100, pagination: .pageQuery(page: "_page", limit: "_limit", size: 500))
/// ```
public struct SynchronizationConfiguration: Sendable, Hashable {
    /// The most entities sent in one batch request.
    public var batchSize: Int
    /// How the server's list is read.
    public var pagination: Pagination
    /// Whether the pull removes local records the server did not return. Only records that are
    /// synced go: an entity with local changes is never pruned. Off by default.
    public var prune: Bool
    /// The key in each object of a batch reply whose value is the id the client sent (`"id"` by
    /// default; a server that assigns its own ids may echo the client's under another key).
    public var identityKey: String
    /// Query items added to every list request of the pull (filters, a first page size for
    /// ``Pagination/linkHeader``).
    public var query: [String: String]
    /// Whether local changes are sent before the pull (on by default).
    public var push: Bool
    /// How local changes go: a batch route, an array to the collection, or entity by entity.
    /// ``PushMode/automatic`` (the default) tries the batch route and falls back to entity by entity
    /// when the server has none.
    public var pushMode: PushMode
    /// How many entities' writes go at once when pushing entity by entity (1 by default: in the
    /// order they were made).
    public var maximumConcurrency: Int
    /// Pull only what changed since the last complete pull (nil, the default: every pull reads the
    /// whole list).
    public var incremental: IncrementalPull?

    /// Makes a configuration; a `batchSize` below 1 is taken as 1.
    public init(
        batchSize: Int = 100,
        pagination: Pagination = .none,
        prune: Bool = false,
        identityKey: String = "id",
        query: [String: String] = [:],
        push: Bool = true,
        pushMode: PushMode = .automatic,
        maximumConcurrency: Int = 1,
        incremental: IncrementalPull? = nil
    ) {
        self.batchSize = max(1, batchSize)
        self.pagination = pagination
        self.prune = prune
        self.identityKey = identityKey
        self.query = query
        self.push = push
        self.pushMode = pushMode
        self.maximumConcurrency = max(1, maximumConcurrency)
        self.incremental = incremental
    }
}
