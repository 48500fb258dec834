/// What a store holds that the server has not accepted: the work erasing the store would lose.
///
/// ```swift
/// let unsynced = try await storage.unsyncedSummary()
/// if unsynced.isEmpty { try await storage.erase() } else { askBeforeLoggingOut(unsynced) }
/// ```
public struct UnsyncedSummary: Sendable, Hashable, CustomStringConvertible {
    /// Outbox entries still to send, those waiting for a retry included.
    public var pendingEntries: Int
    /// Outbox entries the server refused for good, kept for the app to look at or resend.
    public var rejectedEntries: Int
    /// Records whose sync state is not ``SyncState/synced``: created, updated or deleted locally.
    public var unsyncedRecords: Int

    /// Makes a summary.
    public init(pendingEntries: Int = 0, rejectedEntries: Int = 0, unsyncedRecords: Int = 0) {
        self.pendingEntries = pendingEntries
        self.rejectedEntries = rejectedEntries
        self.unsyncedRecords = unsyncedRecords
    }

    /// True when nothing would be lost: no outbox entry and every record synced.
    public var isEmpty: Bool { pendingEntries == 0 && rejectedEntries == 0 && unsyncedRecords == 0 }

    /// The outbox entries, pending and rejected: the writes that would never reach the server.
    public var outboxEntries: Int { pendingEntries + rejectedEntries }

    /// `"2 pending writes, 1 rejected write, 3 unsynced records"`, zero counts left out;
    /// `"nothing unsynced"` when empty.
    public var description: String {
        let parts = [
            (pendingEntries, "pending write"), (rejectedEntries, "rejected write"),
            (unsyncedRecords, "unsynced record"),
        ].filter { $0.0 != 0 }.map { Self.count($0.0, $0.1) }
        return parts.isEmpty ? "nothing unsynced" : parts.joined(separator: ", ")
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// The error ``ErasableStorage/erase(force:)`` throws for this summary, or nil when it is
    /// empty: code `.unsyncedWrites`, a message that says what would be lost and how to go on.
    ///
    /// - Parameter store: the store in words, e.g. `"the store at /data/ann.sqlite"`.
    public func erasureRefusal(of store: String) -> DepotError? {
        guard !isEmpty else { return nil }
        return DepotError(
            .unsyncedWrites,
            "erasing \(store) would lose what the server has not accepted: \(self); nothing was erased. "
                + "Synchronize first, or call erase(force: true)"
        )
    }
}
