import Foundation

/// One API over a REST collection and a local ``Storage``, kept in step: a remote answer is stored
/// locally, a local write is sent to the server, and each operation follows its ``Rule`` in
/// ``strategy`` (target, fallback, synchronize). Every result is ``Sourced``: it says which side
/// answered and what failed on the way.
///
/// ```swift
/// struct Messages: CRUDNetworkingStorageRepository {
///     typealias Entity = Message
///     let store: Networking
///     let storage: Storage
///     let path = "messages"
///     var strategy: Strategy { .remoteFirst }
/// }
/// let answer = try await messages.read("42").value
/// print(answer.value.text, answer.origin)   // .local when the server was unreachable
/// ```
public protocol CRUDNetworkingStorageRepository: NetworkingRepository {
    /// The local store.
    var storage: Storage { get }
    /// The collection's name in the store; `path` by default.
    var collection: String { get }
    /// The rule per operation; ``Strategy/remoteFirst`` by default.
    var strategy: Strategy { get }
}

extension CRUDNetworkingStorageRepository {
    /// `path`.
    public var collection: String { path }
    /// ``Strategy/remoteFirst``.
    public var strategy: Strategy { .remoteFirst }

    var local: LocalStore<Entity> { LocalStore(storage: storage, collection: collection) }
    var remote: RemoteRepository<Entity> { RemoteRepository(store: store, path: path, configuration: configuration) }

    /// Reads the entity with `id`; a remote answer is stored locally (the server's JSON as the
    /// snapshot, with its `ETag`).
    public func read(_ id: Entity.ID) -> Promise<Sourced<Entity>> {
        let (local, remote, key) = (self.local, self.remote, id.pathComponent)
        return run(
            .read,
            remote: { try await remote.readAnswer(id: key, keepJSON: true).value },
            local: { RemoteAnswer(entity: try await local.read(id: key)) },
            afterRemote: { try await local.storeAnswers([$0]) },
            afterLocal: nil
        ).map { $0.map(\.entity) }
    }

    /// Reads the entities matching `query`: on the server as URL query items, locally as equality on
    /// the same keys compared as strings. Remote answers are stored locally.
    public func readAll(query: [String: String] = [:]) -> Promise<Sourced<[Entity]>> {
        let (local, remote) = (self.local, self.remote)
        return run(
            .readAll,
            remote: { try await remote.readAllAnswers(queryItems: query.sortedQueryItems, keepJSON: true).value },
            local: { try await local.readAll(Criteria(query: query)).map { RemoteAnswer(entity: $0) } },
            afterRemote: { try await local.storeAnswers($0) },
            afterLocal: nil
        ).map { $0.map { $0.map(\.entity) } }
    }

    /// Creates the entity; locally it is stored unsynced and, with `synchronize`, sent on.
    public func create(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, remote) = (self.local, self.remote)
        return run(
            .create,
            remote: { try await remote.createAnswer(body: try remote.encoded(entity), keepJSON: true).value },
            local: { RemoteAnswer(entity: try await local.create(entity)) },
            afterRemote: { try await local.storeAnswers([$0]) },
            afterLocal: { try await Self.sendCreated($0.entity, local: local, remote: remote) }
        ).map { $0.map(\.entity) }
    }

    /// Creates from a JSON object; a local create without an `"id"` gets a UUID string id.
    public func create(_ dictionary: JSONObject) -> Promise<Sourced<Entity>> {
        var object = dictionary
        if object["id"] == nil || object["id"] == .null { object["id"] = .string(UUID().uuidString) }
        let localObject = object
        let (local, remote) = (self.local, self.remote)
        return run(
            .create,
            remote: {
                try await remote.createAnswer(body: remote.applyingNilEncoding(dictionary), keepJSON: true).value
            },
            local: {
                RemoteAnswer(
                    entity: try await local.create(try JSONMapping.entity(Entity.self, from: .object(localObject))))
            },
            afterRemote: { try await local.storeAnswers([$0]) },
            afterLocal: { try await Self.sendCreated($0.entity, local: local, remote: remote) }
        ).map { $0.map(\.entity) }
    }

    /// Sends a locally created entity to the server and stores the server's answer in its place
    /// (under the server's id, if it chose another).
    @discardableResult
    static func sendCreated(_ created: Entity, local: LocalStore<Entity>, remote: RemoteRepository<Entity>) async throws
        -> RemoteAnswer<Entity>
    {
        let answer = try await remote.createAnswer(body: try remote.encoded(created), keepJSON: true).value
        if answer.entity.id != created.id { try await local.remove(id: created.id.pathComponent) }
        try await local.storeAnswers([answer])
        return answer
    }

    /// Replaces the entity (PUT); locally it is stored unsynced and, with `synchronize`, sent on.
    /// Sends `If-Match` with the stored strong `ETag` (see ``RepositoryConfiguration/conditionalWrites``).
    public func update(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, remote) = (self.local, self.remote)
        @Sendable func send(_ entity: Entity) async throws -> RemoteAnswer<Entity> {
            let etag = try await local.anyRecord(id: entity.id.pathComponent)?.etag
            return try await remote.updateAnswer(entity, ifMatch: remote.ifMatch(etag), keepJSON: true).value
        }
        return run(
            .update,
            remote: { try await send(entity) },
            local: { RemoteAnswer(entity: try await local.update(entity)) },
            afterRemote: { try await local.storeAnswers([$0]) },
            afterLocal: { try await local.storeAnswers([try await send($0.entity)]) }
        ).map { $0.map(\.entity) }
    }

    /// Deletes the entity.
    public func delete(_ entity: Entity) -> Promise<Sourced<Void>> { delete(id: entity.id) }

    /// Deletes the entity with `id`; a local delete leaves a tombstone until the server has it.
    /// Sends `If-Match` like ``update(_:)``.
    public func delete(id: Entity.ID) -> Promise<Sourced<Void>> {
        let (local, remote, key) = (self.local, self.remote, id.pathComponent)
        @Sendable func send() async throws {
            let etag = try await local.anyRecord(id: key)?.etag
            try await remote.deleteAnswer(id: key, ifMatch: remote.ifMatch(etag)).value
        }
        return run(
            .delete,
            remote: { try await send() },
            local: { try await local.delete(id: key) },
            afterRemote: { try await local.remove(id: key) },
            afterLocal: {
                do {
                    try await send()
                } catch let error as DepotError where error.code == .notFound {
                    // Already gone on the server: the local tombstone can go too.
                }
                try await local.remove(id: key)
            }
        )
    }

    /// Runs `operation` by its rule: target, then fallback on a qualifying error, then the
    /// synchronizing step towards the other side, except towards a server that just failed.
    func run<Value: Sendable>(
        _ operation: RepositoryOperation,
        remote: @escaping @Sendable () async throws -> Value,
        local: @escaping @Sendable () async throws -> Value,
        afterRemote: (@Sendable (Value) async throws -> Void)?,
        afterLocal: (@Sendable (Value) async throws -> Void)?
    ) -> Promise<Sourced<Value>> {
        let rule = strategy.rule(for: operation)
        @Sendable func attempt(_ side: Origin) async throws -> Value {
            do {
                return try await side == .remote ? remote() : local()
            } catch let error as DepotError {
                throw error
            } catch {
                throw DepotError(side == .remote ? .transport : .storage, "\(error)", underlying: error)
            }
        }
        return Promise {
            var answer: Sourced<Value>
            do {
                answer = Sourced(value: try await attempt(rule.target), origin: rule.target)
            } catch let error as DepotError {
                guard let fallback = rule.fallback, error.warrantsFallback(from: rule.target) else { throw error }
                answer = Sourced(value: try await attempt(fallback), origin: fallback, fallbackError: error)
            }
            // A local answer given because the server failed is not sent to that server again now.
            let serverJustFailed = answer.origin == .local && answer.fallbackError != nil
            if rule.synchronize, !serverJustFailed, let step = answer.origin == .remote ? afterRemote : afterLocal {
                do {
                    try await step(answer.value)
                } catch let error as DepotError {
                    answer.synchronizationError = error
                } catch {
                    answer.synchronizationError = DepotError(.storage, "\(error)", underlying: error)
                }
            }
            return answer
        }
    }
}

extension Sourced {
    /// The same answer with `transform` applied to its value.
    func map<Output: Sendable>(_ transform: (Value) -> Output) -> Sourced<Output> {
        Sourced<Output>(
            value: transform(value), origin: origin, fallbackError: fallbackError,
            synchronizationError: synchronizationError)
    }
}

/// The remote half of a networking + storage repository.
struct RemoteRepository<Entity: Identifiable & Sendable>: CRUDNetworkingRepository
where Entity.ID: PathComponentConvertible {
    let store: Networking
    let path: String
    let configuration: RepositoryConfiguration
}
