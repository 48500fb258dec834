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
    /// The collection's name in the store; `path` by default, with its ``NetworkingRepository/pathParameters``
    /// bound (so each household's people are a collection of their own).
    var collection: String { get }
    /// The rule per operation; ``Strategy/remoteFirst`` by default.
    var strategy: Strategy { get }
    /// What the outbox does when the server refuses a forwarded write because the entity changed
    /// there (409/412); ``ConflictPolicy/serverWins`` by default.
    var conflictPolicy: ConflictPolicy { get }
    /// The ordered migrations of the collection's stored JSON, run by `migrate()`; none by
    /// default.
    static var migrations: [Migration] { get }
}

extension CRUDNetworkingStorageRepository {
    /// `path`, with its ``NetworkingRepository/pathParameters`` bound.
    public var collection: String { Route.binding(path, pathParameters) }
    /// ``Strategy/remoteFirst``.
    public var strategy: Strategy { .remoteFirst }
    /// ``ConflictPolicy/serverWins``: a write the server refuses as stale gives way to the server's
    /// version, reported as a ``ForwarderEvent/conflict(_:_:)``.
    public var conflictPolicy: ConflictPolicy { .serverWins }

    var local: LocalStore<Entity> { LocalStore(storage: storage, collection: collection) }
    var remote: RemoteRepository<Entity> { RemoteRepository(store: store, path: path, configuration: configuration) }

    /// Reads the entity with `id`; a remote answer is stored locally (the server's JSON as the
    /// snapshot, with its `ETag`), unless the local record has changes not yet sent.
    ///
    /// The GET goes through the store's HTTP cache: it carries `If-None-Match` /
    /// `If-Modified-Since` when the store holds the record's validators, and a `304` answers with
    /// the stored record (no body, nothing written). Under a rule whose ``Rule/cache`` is
    /// ``CacheUse/cacheFirst`` or ``CacheUse/staleWhileRevalidate`` a fresh stored answer comes
    /// with no request at all (origin `.local`), and a stale one may come at once
    /// (``Sourced/isStale``) while it is revalidated in the background.
    public func read(_ id: Entity.ID) -> Promise<Sourced<Entity>> {
        let rule = strategy.rule(for: .read)
        guard rule.target == .remote, rule.cache != .revalidate else { return readThrough(id) }
        let (local, key) = (self.local, id.pathComponent)
        return Promise {
            let current = (try? await local.moved(id: key))?.id ?? key
            if let (answer, revalidate) = try await cachedAnswer(id: current, use: rule.cache) {
                if revalidate {
                    // Background revalidation: its answer is stored, and live queries see it; a
                    // failure leaves the stored copy as it is, for the next read to try again.
                    let read = readThrough(id)
                    Task { _ = try? await read.value }
                }
                return answer
            }
            return try await readThrough(id).value
        }
    }

    /// ``read(_:)`` asking the server first (conditionally), as its rule says.
    func readThrough(_ id: Entity.ID) -> Promise<Sourced<Entity>> {
        let (local, key, storage) = (self.local, id.pathComponent, self.storage)
        // A write's answer stored while the read is out is newer than the read's answer.
        let reads = DeliveryLog.Scope()
        let held = LockedValue<[String: StoredRecord?]>([:])
        return run(
            .read,
            remote: {
                // An id the server replaced: the read asks for the entity it made. A store that
                // cannot say does not keep the server's answer from the app (its failure shows
                // when the answer is stored).
                let moved = try? await local.moved(id: key)
                await reads.begin(storage)
                return try await conditionalRead(id: moved?.id ?? key)
            },
            local: { _ in RemoteAnswer(entity: try await local.read(id: key)) },
            afterRemote: { answer in
                // What the store holds answers: the app's pending change on top of the server's.
                let kept = try await local.storeAnswers([answer], keepingUnsynced: true, reads: reads)
                held.withLock { $0 = kept }
            },
            afterLocal: nil
        ).map { answer in
            var sourced = answer.map(\.entity)
            if sourced.origin == .remote, case .some(.none) = held.withLock({ $0 }).values.first {
                // Deleted here (a pending delete, or a delete delivered while the read was out).
                throw DepotError(.notFound, "\(key) is deleted in the local store")
            }
            if sourced.origin == .remote, case let record?? = held.withLock({ $0 }).values.first,
                let entity = try? local.decoded(record)
            {
                sourced.value = entity
                sourced.hasPendingWrites = record.syncState != .synced
            }
            if case .staleAfterError(let error)? = answer.value.caching {
                // The server failed; the stored copy answered within its stale-if-error window.
                sourced.origin = .local
                sourced.isStale = true
                sourced.fallbackError = error
            }
            return sourced
        }
    }

    /// Reads the entities matching `query`: on the server as URL query items, locally as equality on
    /// the same keys compared as strings. Remote answers are stored locally, except over records
    /// with changes not yet sent.
    ///
    /// The GET goes through the store's HTTP cache: it carries the list's validators when the
    /// store holds them and every record the list named, still synced; a `304` answers with those
    /// records, in the server's order, with nothing downloaded or written. Under a rule whose
    /// ``Rule/cache`` is ``CacheUse/cacheFirst`` or ``CacheUse/staleWhileRevalidate`` a fresh
    /// stored list comes with no request at all (origin `.local`), and a stale one may come at
    /// once (``Sourced/isStale``) while it is revalidated in the background.
    public func readAll(query: [String: String] = [:]) -> Promise<Sourced<[Entity]>> {
        let rule = strategy.rule(for: .readAll)
        guard rule.target == .remote, rule.cache != .revalidate else { return readAllThrough(query: query) }
        return Promise {
            if let (answer, revalidate) = try await cachedListAnswer(
                queryItems: query.sortedQueryItems, use: rule.cache)
            {
                if revalidate {
                    // Background revalidation: its answer is stored, and live queries see it.
                    let read = readAllThrough(query: query)
                    Task { _ = try? await read.value }
                }
                return answer
            }
            return try await readAllThrough(query: query).value
        }
    }

    /// ``readAll(query:)`` asking the server first (conditionally), as its rule says.
    func readAllThrough(query: [String: String]) -> Promise<Sourced<[Entity]>> {
        let (local, storage) = (self.local, self.storage)
        // The key the server echoes a client's id under, when the repository synchronizes.
        let identityKey = (self as? any SynchronizableRepository)?.synchronization.identityKey
        // A write's answer stored while the read is out is newer than the read's answers.
        let reads = DeliveryLog.Scope()
        let held = LockedValue<[String: StoredRecord?]>([:])
        return run(
            .readAll,
            remote: {
                await reads.begin(storage)
                return try await conditionalReadAll(queryItems: query.sortedQueryItems)
            },
            local: { _ in
                ListAnswer(answers: try await local.readAll(Criteria(query: query)).map { RemoteAnswer(entity: $0) })
            },
            afterRemote: { answer in
                // What the store holds answers: the app's pending changes on top of the server's.
                let kept = try await local.storeAnswers(
                    answer.answers, keepingUnsynced: true, reads: reads, list: true, page: answer.page,
                    quarantining: answer.unreadable, identityKey: identityKey)
                held.withLock { $0 = kept }
            },
            afterLocal: nil
        ).map { answer in
            var sourced = answer.map { $0.answers.map(\.entity) }
            sourced.unreadable = answer.value.unreadable
            guard sourced.origin == .remote else { return sourced }
            let kept = held.withLock { $0 }
            guard !kept.isEmpty else { return sourced }
            sourced.value = sourced.value.compactMap { entity in
                guard case .some(let held) = kept[entity.id.pathComponent] else { return entity }
                // Deleted here (a pending delete, or a delete delivered while the read was out).
                guard let record = held else { return nil }
                if record.syncState != .synced { sourced.hasPendingWrites = true }
                return (try? local.decoded(record)) ?? entity
            }
            return sourced
        }
    }

    /// Creates the entity. A local create is stored `.created` and recorded in the outbox in the
    /// same transaction; a ``Forwarder`` (or, under a synchronizing local-first rule, this call)
    /// sends it on.
    ///
    /// A remote create carries an `Idempotency-Key` made before it is sent. When it fails in a way
    /// that falls back (no answer, a timeout, a 5xx), the server may have applied it all the same,
    /// so the local create is recorded in the outbox under that same key: a server that honours
    /// keys applies the write once. (A server that ignores keys may apply it twice; see
    /// ``RepositoryConfiguration/createMethod`` for client-chosen ids with `PUT`.)
    public func create(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngine, entity.id.pathComponent
        )
        let idempotencyKey = UUID().uuidString
        return run(
            .create,
            remote: {
                try await Self.forwardEarlier(key, outbox)
                return try await remote.createAnswer(
                    body: try remote.encoded(entity), keepJSON: true, idempotencyKey: idempotencyKey, entityID: key
                ).value
            },
            local: { sentFirst in
                RemoteAnswer(entity: try await writes.create(entity, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0, sentID: key, sent: entity) },
            afterLocal: { _ in try await Self.forward(key, outbox, handingOff: true) }
        ).map { $0.map(\.entity) }
    }

    /// Creates from a JSON object. Without an `"id"`, an entity whose id is a `String` or a `UUID`
    /// gets a new UUID id before anything is sent, so the server and the local copy name it alike
    /// (and a create retried after a lost answer names the same object); other ids are left to
    /// the server. The remote create carries an `Idempotency-Key` that a fallback keeps, as in
    /// `create(_:)` of an entity.
    ///
    /// A local create (offline, or a local-first rule) of an entity whose `Int` or `Int64` id the
    /// server assigns is stored under a ``TemporaryID`` (a negative number), which is never sent:
    /// once delivered, the entity moves to the server's id (``serverID(of:)``).
    public func create(_ dictionary: JSONObject) -> Promise<Sourced<Entity>> {
        var object = dictionary
        if object["id"] == nil || object["id"] == .null {
            if Entity.ID.self == String.self || Entity.ID.self == UUID.self {
                object["id"] = .string(UUID().uuidString)
            } else {
                object["id"] = nil
            }
        }
        let body = object
        let idempotencyKey = UUID().uuidString
        let (local, writes, remote, outbox) = (self.local, outboxLocal, self.remote, outboxEngine)
        return run(
            .create,
            remote: {
                // An entity named by its id may have earlier offline writes: they go first.
                if let id = MovedIDs.idText(body["id"]) { try await Self.forwardEarlier(id, outbox) }
                return try await remote.createAnswer(
                    body: remote.applyingNilEncoding(body), keepJSON: true, idempotencyKey: idempotencyKey
                ).value
            },
            local: { sentFirst in
                var body = body
                if body["id"] == nil {
                    // The server assigns the id: a temporary one stands for it until then.
                    guard let temporary = TemporaryID.make(Entity.ID.self) else {
                        throw DepotError(
                            .invalidRequest,
                            "a local create of \(Entity.self) needs an \"id\": Depot makes no temporary \(Entity.ID.self) id"
                        )
                    }
                    let text = temporary.pathComponent
                    body["id"] = Int64(text).map(JSON.integer) ?? .string(text)
                }
                let entity = try JSONMapping.entity(Entity.self, from: .object(body))
                return RemoteAnswer(
                    entity: try await writes.create(entity, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0) },
            afterLocal: { try await Self.forward($0.entity.id.pathComponent, outbox, handingOff: true) }
        ).map { $0.map(\.entity) }
    }

    /// Replaces the entity (PUT). Sends `If-Match` with the stored strong `ETag` (see
    /// ``RepositoryConfiguration/conditionalWrites``). A local update is stored unsynced and
    /// recorded in the outbox; a remote one first sends the entity's earlier outbox entries (when
    /// they cannot all go, a rule falling back to `.local` records it behind them, answered with
    /// origin `.local` and ``Sourced/fallbackError`` `.queuedBehindEarlierWrites`), and carries an
    /// `Idempotency-Key` that a fallback keeps, as `create(_:)` of an entity does.
    public func update(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngine, entity.id.pathComponent
        )
        if let refusal = Self.refusingEmpty(key) { return Promise(error: refusal) }
        let idempotencyKey = UUID().uuidString
        return run(
            .update,
            remote: {
                // The entity's earlier writes go first; an id the server replaced (by now, or by
                // their answers) is where the write goes: it is built after they were delivered.
                try await Self.forwardEarlier(try await local.following(entity).id.pathComponent, outbox)
                let entity = try await local.following(entity)
                let key = entity.id.pathComponent
                let record = try await local.anyRecord(id: key)
                return try await remote.updateAnswer(
                    entity, ifMatch: remote.ifMatch(record?.etag), keepJSON: true, idempotencyKey: idempotencyKey,
                    base: record?.snapshot.map(JSON.object)
                ).value
            },
            local: { sentFirst in
                RemoteAnswer(entity: try await writes.update(entity, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0) },
            afterLocal: { try await Self.forward($0.entity.id.pathComponent, outbox, handingOff: true) }
        ).map { $0.map(\.entity) }
    }

    /// Deletes the entity.
    public func delete(_ entity: Entity) -> Promise<Sourced<Void>> { delete(id: entity.id) }

    /// Deletes the entity with `id`; a local delete leaves a tombstone and an outbox entry until the
    /// server has it. Sends `If-Match` like ``update(_:)``.
    public func delete(id: Entity.ID) -> Promise<Sourced<Void>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngine, id.pathComponent
        )
        if let refusal = Self.refusingEmpty(key) { return Promise(error: refusal) }
        let idempotencyKey = UUID().uuidString
        // A write's answer for the entity stored while the DELETE is out (it was created again)
        // is newer than the delete's.
        let (storage, sends) = (self.storage, DeliveryLog.Scope())
        return run(
            .delete,
            remote: {
                // The entity's earlier writes go first; an id the server replaced (by now, or by
                // their answers) is where the delete goes: it is built after they were delivered.
                try await Self.forwardEarlier(try await local.moved(id: key)?.id ?? key, outbox)
                let key = try await local.moved(id: key)?.id ?? key
                let record = try await local.anyRecord(id: key)
                await sends.begin(storage)
                try await remote.deleteAnswer(
                    id: key, ifMatch: remote.ifMatch(record?.etag), idempotencyKey: idempotencyKey,
                    base: record?.snapshot.map(JSON.object)
                ).value
                return key
            },
            local: { sentFirst in
                try await writes.delete(id: key, idempotencyKey: sentFirst ? idempotencyKey : nil)
                return try await local.moved(id: key)?.id ?? key
            },
            afterRemote: { (sentID: String) in try await local.storeDeleteAnswer(sentID: sentID, since: sends.current)
            },
            afterLocal: { (sentID: String) in try await Self.forward(sentID, outbox, handingOff: true) }
        ).map { $0.map { _ in () } }
    }

    /// `.invalidRequest` for an empty id, refused before the store or the outbox sees the write: its
    /// request would address the whole collection (see ``Route``).
    static func refusingEmpty(_ key: String) -> DepotError? {
        key.isEmpty ? DepotError(.invalidRequest, "an empty id would address the whole collection") : nil
    }

    /// Sends a locally created entity to the server and stores the server's answer in its place
    /// (under the server's id, if it chose another).
    @discardableResult
    static func sendCreated(_ created: Entity, local: LocalStore<Entity>, remote: RemoteRepository<Entity>) async throws
        -> RemoteAnswer<Entity>
    {
        let answer = try await remote.createAnswer(
            body: try remote.encoded(created), keepJSON: true, entityID: created.id.pathComponent
        ).value
        if answer.entity.id != created.id { try await local.remove(id: created.id.pathComponent) }
        try await local.storeAnswers([answer])
        return answer
    }

    /// The local store as local writes see it: each write recorded in the outbox with the body it
    /// sends.
    var outboxLocal: LocalStore<Entity> {
        let remote = self.remote
        return LocalStore(storage: storage, collection: collection, outboxPayload: { try remote.encoded($0) })
    }

    /// Sends this repository's outbox entries for one entity at a time (an immediate send), with
    /// the configuration of the forwarder started on this storage (its clock, lease duration,
    /// request timeout and backoff; see ``OutboxCoordinator/configuration(of:)``), else the
    /// default one.
    var outboxEngine: OutboxEngine {
        OutboxEngine(
            storage: storage, channels: [collection: OutboxChannel(self)],
            configuration: OutboxCoordinator.configuration(of: storage) ?? ForwarderConfiguration())
    }

    /// Sends the entity's outbox entries now (a synchronizing local-first write). With
    /// `handingOff`, when a forwarder of this process is running on the storage, the send is left
    /// to it (the write already woke it): one sender, no race for the lease; its events report it.
    ///
    /// - Throws: what kept an entry from going through: the retry's error, or the refusal.
    static func forward(_ id: String, _ outbox: OutboxEngine, handingOff: Bool = false) async throws {
        if handingOff, OutboxCoordinator.hasRunningForwarder(outbox.storage) { return }
        let report = try await outbox.deliver(collection: outbox.channels.keys.first ?? "", entityID: id)
        if let error = report.errors.first { throw error }
        if let refused = report.rejected.first, let rejection = refused.rejection { throw rejection.error() }
    }

    /// Before a remote write: the entity's earlier offline writes go first, so the server sees the
    /// writes in the order they were made. When they cannot all go now (the server fails, one was
    /// refused and moved aside, a forwarder holds them), throws `.queuedBehindEarlierWrites`: a
    /// rule with a local fallback then records this write in the outbox behind them, and the
    /// forwarder delivers them all in order (a refused one once the app retries it).
    ///
    /// An earlier write the server refused with a 404 says the entity is gone there (deleted, by
    /// this app or another client): this write could never follow it, so it is refused at once
    /// with `.notFound`, nothing stored or queued, as it would be with no earlier write.
    ///
    /// - Throws: `.notFound`, `.queuedBehindEarlierWrites` (with what kept them back as its
    ///   underlying error), or the store's error, or `.cancelled`.
    static func forwardEarlier(_ id: String, _ outbox: OutboxEngine) async throws {
        let entries = OutboxQuery(collections: Set(outbox.channels.keys), entityID: id, selection: .all)
        guard try await outbox.storage.outboxCount(entries) > 0 else { return }
        var reason: DepotError?
        do {
            try await forward(id, outbox)
        } catch let error as DepotError where !error.isCancellation && error.code != .storage {
            reason = error
        }
        let left = try await outbox.storage.outbox(entries)
        if let gone = left.lazy.compactMap(\.rejection).first(where: { $0.status == 404 }) {
            throw gone.error(prefix: "\(id) is gone from the server (an earlier write to it was refused): ")
        }
        if !left.isEmpty {
            throw DepotError(
                .queuedBehindEarlierWrites,
                "\(left.count) earlier write(s) to \(id) wait in the outbox; this one goes behind them",
                underlying: reason)
        }
    }

    /// Runs `operation` by its rule: target, then fallback on a qualifying error, then the
    /// synchronizing step towards the other side, except towards a server that just failed.
    /// `local` is told whether the remote side was tried first and failed in a way that may have
    /// reached the server (so a write it records may already be there).
    func run<Value: Sendable>(
        _ operation: RepositoryOperation,
        remote: @escaping @Sendable () async throws -> Value,
        local: @escaping @Sendable (_ mayBeOnServer: Bool) async throws -> Value,
        afterRemote: (@Sendable (Value) async throws -> Void)?,
        afterLocal: (@Sendable (Value) async throws -> Void)?
    ) -> Promise<Sourced<Value>> {
        let rule = strategy.rule(for: operation)
        @Sendable func attempt(_ side: Origin, after failure: DepotError? = nil) async throws -> Value {
            do {
                // A remote failure that may have reached the server: a local write records it as sent.
                return try await side == .remote ? remote() : local(failure.map { !$0.neverReachedServer } ?? false)
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
                answer = Sourced(
                    value: try await attempt(fallback, after: rule.target == .remote ? error : nil), origin: fallback,
                    fallbackError: error)
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
            synchronizationError: synchronizationError, isStale: isStale, hasPendingWrites: hasPendingWrites,
            unreadable: unreadable)
    }
}

/// The remote half of a networking + storage repository.
struct RemoteRepository<Entity: Identifiable & Sendable>: CRUDNetworkingRepository
where Entity.ID: PathComponentConvertible {
    let store: Networking
    let path: String
    let configuration: RepositoryConfiguration
}
