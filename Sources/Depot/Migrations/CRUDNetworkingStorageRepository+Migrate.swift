import Foundation

extension CRUDNetworkingStorageRepository {
    /// No migrations.
    public static var migrations: [Migration] { [] }
}

extension CRUDNetworkingStorageRepository where Entity: Decodable & Encodable {
    /// The schema of the collection: its name, `Entity`, and
    /// ``CRUDNetworkingStorageRepository/migrations``.
    public var schema: CollectionSchema {
        CollectionSchema(
            collection, entity: Entity.self, migrations: Self.migrations, coding: configuration.coding)
    }

    /// Runs the collection's pending migrations (`Storage.migrate(_:)`):
    /// call it once, when the store opens, before other calls (a sync included).
    ///
    /// - Returns: a promise of what was done.
    public func migrate() -> Promise<MigrationReport> {
        let (storage, schema) = (self.storage, self.schema)
        return Promise { try await storage.migrate(schema) }
    }
}
