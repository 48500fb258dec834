extension InMemoryStorage: ErasableStorage {
    /// Counts the outbox entries, pending and rejected, and the records not synced.
    ///
    /// - Throws: `DepotError` `.storage` once the store is erased.
    public func unsyncedSummary() async throws -> UnsyncedSummary {
        let summary = contents.withLock { $0.erased ? nil : Self.summary($0) }
        guard let summary else { throw Self.erasedError("summarize unsynced work") }
        return summary
    }

    /// Drops every record and outbox entry, if none is a write the server has not accepted (or
    /// `force` is true). The store is spent afterwards: every later call rejects with `.storage`.
    ///
    /// ```swift
    /// try await storage.erase()  // at logout, once synchronize() has pushed everything
    /// ```
    ///
    /// - Parameter force: erase even when writes would be lost.
    /// - Throws: `DepotError` `.unsyncedWrites` (nothing dropped) when `force` is false and
    ///   ``unsyncedSummary()`` is not empty; `.storage` when the store was already erased.
    public func erase(force: Bool) async throws {
        // Under the writer lock: no write lands between the count and the erasure.
        try writer.withLock {
            try contents.withLock { contents in
                guard !contents.erased else { throw Self.erasedError("erase the store") }
                if !force, let refusal = Self.summary(contents).erasureRefusal(of: "the in-memory store") {
                    throw refusal
                }
                contents = Contents()
                contents.erased = true
            }
        }
    }

    private static func summary(_ contents: Contents) -> UnsyncedSummary {
        let rejected = contents.outbox.entries.count { $0.isRejected }
        return UnsyncedSummary(
            pendingEntries: contents.outbox.entries.count - rejected,
            rejectedEntries: rejected,
            unsyncedRecords: contents.collections.values.reduce(0) { total, records in
                total + records.values.count { $0.syncState != .synced }
            }
        )
    }
}
