import Foundation

/// What `Storage.migrate(_:)` did to one collection.
public struct MigrationReport: Sendable, Hashable {
    /// The collection.
    public var collection: String
    /// The version the collection was stored at (0 when never migrated).
    public var fromVersion: Int
    /// The version it is stored at now; equal to ``fromVersion`` when nothing was pending (or
    /// when the store is at a newer version than the app knows, which is left alone).
    public var toVersion: Int
    /// How many records the migrations rewrote (tombstones included).
    public var recordsMigrated: Int
    /// How many queued outbox payloads were migrated (only with ``Migration/QueuedWrites/migrate``).
    public var queuedWritesMigrated: Int
    /// The ids of the records that still cannot be read as the entity after the migrations: kept
    /// as the migrations left them (never dropped), by id.
    public var unreadable: [String]

    /// Makes a report.
    public init(
        collection: String, fromVersion: Int, toVersion: Int, recordsMigrated: Int = 0, queuedWritesMigrated: Int = 0,
        unreadable: [String] = []
    ) {
        self.collection = collection
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.recordsMigrated = recordsMigrated
        self.queuedWritesMigrated = queuedWritesMigrated
        self.unreadable = unreadable
    }
}
