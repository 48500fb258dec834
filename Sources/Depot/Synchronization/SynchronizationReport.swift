/// What one ``SynchronizableRepository/synchronize(progress:)`` run did, counted so far: the
/// progress closure receives it after each batch and page, the promise with its final counts.
public struct SynchronizationReport: Sendable {
    /// Local creates and updates the server accepted and answered for (merged back by identity).
    public var pushed = 0
    /// Server entities stored locally by the pull.
    public var pulled = 0
    /// Local deletes the server confirmed (2xx, or 404: already gone); their tombstones removed.
    public var deleted = 0
    /// Local changes that could not be synchronized and stay unsynced (see ``errors``).
    public var failed = 0
    /// Server entities not stored because the local record has unsynced changes (kept as they are):
    /// in the pull, and in a batch reply for a record changed locally while the batch was in flight
    /// (its snapshot becomes the reply, and it stays unsynced for the next run).
    public var conflicts = 0
    /// Synced local records removed because the server no longer lists them (with `prune` on).
    public var pruned = 0
    /// Local records removed because an incremental pull reported them deleted on the server
    /// (``IncrementalPull/Deletions/flag(_:)``).
    public var removed = 0
    /// Whether the pull asked only for changes since a stored cursor.
    public var incremental = false
    /// Batch requests sent to the synchronize route (one that never left, its connection refused
    /// before any byte went, is not counted; nor is a page whose records all went entity by entity).
    public var batches = 0
    /// Pages read by the pull (``notModified`` ones included).
    public var pages = 0
    /// Pages the server answered `304 Not Modified` to the pull's conditional GET: the stored
    /// records were current, so nothing was downloaded, decoded or written for them.
    public var notModified = 0
    /// Whether the pull read every page; pruning only happens after a complete pull.
    public var pullCompleted = false
    /// Whether a graceful stop (``ActionContext/isStopping``: ``ActionProxy/stop()``,
    /// ``AutoSync/stop()``, a service group's graceful shutdown) ended the run before it had
    /// done everything: the push or the pull ended after the request in flight, whose answer was
    /// stored; what is left waits for the next run.
    public var stoppedEarly = false
    /// What went wrong, in order: a batch's request, a reply missing or repeating an entity or
    /// naming an unknown one, a delete, a page. Each is a `DepotError` with the request and status.
    public var errors: [DepotError] = []
    /// Rows of the pull the app could not read, in order: not stored, each also in ``errors``.
    /// The pull's cursor stays at or before the first of them (an ``IncrementalPull`` keeps its
    /// old cursor when the row carries no stamp or the cursor is the server's token), so the next
    /// pull brings them again.
    public var unreadable: [UnreadableRow] = []
    /// Rows kept in the quarantine by an earlier pull that the app can read now: merged by this
    /// pull, and gone from the quarantine.
    public var recovered = 0
    /// What the run decided on its own, for logs: e.g. that the server has no batch endpoint and
    /// changes went entity by entity.
    public var notes: [String] = []

    /// An empty report.
    public init() {}
}
