import Foundation

/// What one collection of a ``Storage`` holds: its name, the entity type its records decode to,
/// and the ordered ``Migration``s that bring older records to the current version.
///
/// ```swift
/// let notes = CollectionSchema("notes", entity: Note.self, migrations: [
///     Migration(to: 2) { record in record["kind"] = record["kind"] ?? "plain" },
/// ])
/// let reports = try await storage.migrate(notes)
/// ```
///
/// The schema's ``version`` is its last migration's version; a collection never migrated is at
/// version 0 (what the app wrote before it declared any migration).
public struct CollectionSchema: Sendable {
    /// The collection's name in the store, e.g. `"notes"`.
    public let collection: String
    /// The ordered migrations: versions above 0 and increasing.
    public let migrations: [Migration]
    /// The entity type's name, for messages.
    public let entityName: String
    /// Reads an object as the entity and writes it back: the object the app stores for it.
    let normalize: @Sendable (JSONObject) throws -> JSONObject

    /// Makes the schema of `collection`, whose records are `entity`s.
    ///
    /// - Parameters:
    ///   - collection: the collection's name in the store.
    ///   - entity: the type its records decode to, after the migrations.
    ///   - migrations: the migrations, oldest first; versions above 0 and increasing (checked by
    ///     `Storage.migrate(_:)`, which refuses others with `.migration`).
    ///   - coding: how the entity spells dates and keys (``RepositoryConfiguration/coding``).
    public init<Entity: Decodable & Encodable & Sendable>(
        _ collection: String, entity: Entity.Type, migrations: [Migration], coding: EntityCoding = .default
    ) {
        self.collection = collection
        self.migrations = migrations
        self.entityName = String(describing: Entity.self)
        self.normalize = { object in
            try JSONMapping.object(
                JSONMapping.entity(Entity.self, from: .object(object), coding: coding), coding: coding)
        }
    }

    /// The version the migrations bring the collection to: the last one's, or 0 with none.
    public var version: Int { migrations.last?.version ?? 0 }

    /// Checks that the versions are above 0 and increasing.
    ///
    /// - Throws: `DepotError` `.migration` naming the collection and the versions.
    func validate() throws {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                let versions = migrations.map { String($0.version) }.joined(separator: ", ")
                throw DepotError(
                    .migration,
                    "the migrations of \(collection) must have increasing versions above 0, found \(versions)")
            }
            previous = migration.version
        }
    }
}
