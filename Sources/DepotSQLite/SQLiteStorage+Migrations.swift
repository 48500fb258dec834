import Depot
import Foundation

extension SQLiteStorage {
    /// Opens (creating if needed) the store at `path` and brings each collection of `schemas` to
    /// its schema's version before handing the store out, so no read or write of the app races a
    /// migration.
    ///
    /// ```swift
    /// let storage = try await SQLiteStorage.open(path: path, migrating: [
    ///     CollectionSchema("notes", entity: Note.self, migrations: [
    ///         Migration(to: 2) { record in record["kind"] = record["kind"] ?? "plain" }
    ///     ])
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - indexes: collection → top-level keys often used in criteria; each gets an index.
    ///   - schemas: the collections to migrate, in order (see `Storage.migrate(_:)`).
    /// - Returns: the open store, migrated.
    /// - Throws: `DepotError` `.storage` when the file cannot be opened; `.migration` when a
    ///   migration fails (the store is closed, and the failing collection left as it was).
    public static func open(
        path: String, indexes: [String: [String]] = [:], migrating schemas: [CollectionSchema]
    ) async throws -> SQLiteStorage {
        let storage = try SQLiteStorage(path: path, indexes: indexes)
        do {
            try await storage.migrate(schemas)
        } catch {
            try? storage.close()  // the migration's error is the one that matters
            throw error
        }
        return storage
    }
}
