import Foundation

/// CRUD on a local ``Storage`` alone, for one collection. Writes mark records unsynced (created,
/// updated, deleted) so a later synchronization can send them.
///
/// ```swift
/// struct LocalMessages: StorageRepository {
///     typealias Entity = Message
///     let storage: Storage
///     let collection = "messages"
/// }
/// let mine = try await LocalMessages(storage: InMemoryStorage()).readAll(Criteria(["author": "me"])).value
/// ```
public protocol StorageRepository: Repository {
    /// The store.
    var storage: Storage { get }
    /// The collection's name in the store.
    var collection: String { get }
    /// The ordered migrations of the collection's stored JSON, run by `migrate()`; none by
    /// default.
    static var migrations: [Migration] { get }
    /// How `Codable` entities spell dates and keys in the store: the same ``EntityCoding`` as a
    /// networking repository's ``RepositoryConfiguration/coding`` on the same collection.
    /// `Foundation`'s defaults unless told.
    var coding: EntityCoding { get }
}

extension StorageRepository {
    /// `Foundation`'s defaults.
    public var coding: EntityCoding { .default }

    var local: LocalStore<Entity> { LocalStore(storage: storage, collection: collection, coding: coding) }

    /// Stores a new entity; rejects with `.conflict` when its id is taken.
    public func create(_ entity: Entity) -> Promise<Entity> {
        let local = self.local
        return Promise { try await local.create(entity) }
    }

    /// The entity with `id`; rejects with `.notFound` when there is none.
    public func read(_ id: Entity.ID) -> Promise<Entity> {
        let local = self.local
        return Promise { try await local.read(id: id.pathComponent) }
    }

    /// The entity with `id`, or nil.
    public func fetch(id: Entity.ID) -> Promise<Entity?> {
        let local = self.local
        return Promise {
            do { return try await local.read(id: id.pathComponent) } catch let error as DepotError
                where error.code == .notFound
            { return nil }
        }
    }

    /// The entities matching `criteria` (every entity by default).
    public func readAll(_ criteria: Criteria = .all) -> Promise<[Entity]> {
        let local = self.local
        return Promise { try await local.readAll(criteria) }
    }

    /// Stores the entity in place of the one with its id (creating it if missing).
    public func update(_ entity: Entity) -> Promise<Entity> {
        let local = self.local
        return Promise { try await local.update(entity) }
    }

    /// Deletes the entity; rejects with `.notFound` when there is none.
    public func delete(_ entity: Entity) -> Promise<Void> { delete(id: entity.id) }

    /// Deletes the entity with `id`; rejects with `.notFound` when there is none.
    public func delete(id: Entity.ID) -> Promise<Void> {
        let local = self.local
        return Promise { try await local.delete(id: id.pathComponent) }
    }
}
