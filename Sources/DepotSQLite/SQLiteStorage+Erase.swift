import Depot
import Foundation
import GRDB

// Logout: one file per account, erased when the account goes away.

extension SQLiteStorage: ErasableStorage {
    /// Counts what erasing would lose, in one read: outbox entries pending and rejected, records
    /// whose sync state is not `.synced`.
    ///
    /// ```swift
    /// let unsynced = try await storage.unsyncedSummary()
    /// if !unsynced.isEmpty { print("logging out would lose \(unsynced)") }
    /// ```
    ///
    /// - Throws: `DepotError` `.storage` when the store cannot be read, or is closed or erased.
    public func unsyncedSummary() async throws -> UnsyncedSummary {
        try await read("summarize unsynced work") { db in try Self.unsyncedSummary(db) }
    }

    static func unsyncedSummary(_ db: Database) throws -> UnsyncedSummary {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT
                    (SELECT COUNT(*) FROM outbox WHERE rejected = 0),
                    (SELECT COUNT(*) FROM outbox WHERE rejected = 1),
                    (SELECT COUNT(*) FROM records WHERE sync_state != 'synced')
                """
        )
        return UnsyncedSummary(
            pendingEntries: row?[0] ?? 0, rejectedEntries: row?[1] ?? 0, unsyncedRecords: row?[2] ?? 0)
    }

    /// Erases the store: closes it and removes its database file and the `-wal` and `-shm` files
    /// beside it (an in-memory store is closed, which frees its contents). It refuses, erasing
    /// nothing, while the store holds writes the server has not accepted, unless `force` is true.
    /// The store is spent afterwards: every later call rejects with `.storage`.
    ///
    /// The check and the erasure are one step: no write of this object lands between them. Stop
    /// the forwarder and synchronization on the store first, and close any other `SQLiteStorage`
    /// open on the same file (in this process or another): its file is removed under it.
    ///
    /// ```swift
    /// func logOut() async throws {
    ///     try await messages.synchronize().value
    ///     try await storage.erase()  // throws .unsyncedWrites if something is still unsent
    /// }
    /// ```
    ///
    /// - Parameter force: erase even when writes would be lost.
    /// - Throws: `DepotError` `.unsyncedWrites` (nothing erased) when `force` is false and
    ///   ``unsyncedSummary()`` is not empty; `.storage` when the store is already closed or
    ///   erased, or a file cannot be removed (the store is erased all the same: finish with
    ///   ``destroy(path:)``).
    public func erase(force: Bool) async throws {
        let (lifecycle, store) = (self.lifecycle, storeName)
        let what = "cannot erase \(store)"
        try Self.ensureOpen(lifecycle, what, store)
        try await Self.storageErrors(what) {
            // A barrier: reads and writes in flight finish first, and the ones queued behind it
            // find the store erased when they start.
            try await writer.barrierWriteWithoutTransaction { db in
                try Self.ensureOpen(lifecycle, what, store)
                if !force, let refusal = try Self.unsyncedSummary(db).erasureRefusal(of: store) { throw refusal }
                lifecycle.withLock { $0 = .erased }
            }
        }
        try Self.storageErrors("\(store) was erased but could not be closed; remove its files with destroy(path:)") {
            try writer.close()
        }
        if let path { try Self.destroy(path: path) }
    }

    /// Removes the files of a store that is not open: the `-wal` and `-shm` files beside `path`,
    /// then the database file (in that order, so a crash halfway never leaves an old journal
    /// for a new file at the path to replay). A file that is not there is skipped; a `path` with
    /// no files at all is fine.
    ///
    /// ```swift
    /// try SQLiteStorage.destroy(path: "/var/lib/app/\(accountID).sqlite")  // an account removed while logged out
    /// ```
    ///
    /// - Parameter path: the database file, as given to ``init(path:indexes:)``.
    /// - Throws: `DepotError` `.storage` when a file exists but cannot be removed (no permission,
    ///   a directory at the path); files removed before it stay removed.
    public static func destroy(path: String) throws {
        for file in [path + "-wal", path + "-shm", path] where unlink(file) != 0 {
            let code = errno
            if code == ENOENT { continue }
            throw DepotError(.storage, "cannot remove \(file): \(String(cString: strerror(code)))")
        }
    }
}
