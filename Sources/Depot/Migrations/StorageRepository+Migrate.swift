import Foundation

extension StorageRepository {
    /// No migrations.
    public static var migrations: [Migration] { [] }
}

extension StorageRepository where Entity: Decodable & Encodable {
    /// The schema of the collection: its name, `Entity`, and ``StorageRepository/migrations``.
    public var schema: CollectionSchema {
        CollectionSchema(collection, entity: Entity.self, migrations: Self.migrations, coding: coding)
    }

    /// Runs the collection's pending migrations (`Storage.migrate(_:)`):
    /// call it once, when the store opens, before other calls.
    ///
    /// ```swift
    /// struct Notes: StorageRepository {
    ///     typealias Entity = Note
    ///     static let migrations = [Migration(to: 2) { $0["kind"] = $0["kind"] ?? "plain" }]
    ///     let storage: Storage
    ///     let collection = "notes"
    /// }
    /// try await Notes(storage: storage).migrate().value
    /// ```
    ///
    /// - Returns: a promise of what was done.
    public func migrate() -> Promise<MigrationReport> {
        let (storage, schema) = (self.storage, self.schema)
        return Promise { try await storage.migrate(schema) }
    }
}
