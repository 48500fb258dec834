/// A ``Storage`` an app can wipe, at logout or when an account goes away: it says what it holds
/// that the server has not accepted, and erases itself only when that is nothing (or when told
/// to anyway). ``InMemoryStorage`` and `SQLiteStorage` conform, so logout code runs on both.
///
/// ```swift
/// do {
///     try await storage.erase()
/// } catch let error as DepotError where error.code == .unsyncedWrites {
///     let unsynced = try await storage.unsyncedSummary()
///     if userAgrees(toLose: unsynced) { try await storage.erase(force: true) }
/// }
/// ```
///
/// An erased store is spent: every later call rejects with `.storage`. Stop the forwarder and
/// any synchronization on it first, and open a new store for the next account.
public protocol ErasableStorage: Storage {
    /// Counts what erasing would lose: outbox entries pending and rejected, records not synced.
    ///
    /// - Throws: `DepotError` `.storage` when the store cannot be read (or was erased or closed).
    func unsyncedSummary() async throws -> UnsyncedSummary

    /// Erases every record and outbox entry, and the store itself.
    ///
    /// - Parameter force: erase even when the store holds writes the server has not accepted.
    /// - Throws: `DepotError` `.unsyncedWrites` (nothing erased) when `force` is false and
    ///   ``unsyncedSummary()`` is not empty; `.storage` when the store fails or was already
    ///   erased or closed.
    func erase(force: Bool) async throws
}

extension ErasableStorage {
    /// Erases the store if it holds no write the server has not accepted; see ``erase(force:)``.
    ///
    /// - Throws: `DepotError` `.unsyncedWrites` (nothing erased) when it holds some.
    public func erase() async throws { try await erase(force: false) }
}
