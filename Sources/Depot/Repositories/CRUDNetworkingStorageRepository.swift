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

    var local: LocalStore<Entity> {
        let configuration = self.configuration
        return LocalStore(
            storage: storage, collection: collection, serverOwnedKeys: configuration.serverOwnedKeys,
            coding: configuration.coding, references: configuration.references)
    }
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
            // One fallback decision for every strategy: what makes a remote-first read fall back
            // (an interceptor that cannot adapt the request offline, say) makes this one too.
            if let (answer, revalidate) = try await Self.unlessFallback({
                try await cachedAnswer(id: current, use: rule.cache)
            }) {
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
                // An id the server replaced: the read asks for the entity it made; an id Depot
                // made whose entity is gone is asked of no server (none knows it). A store that
                // cannot say does not keep the server's answer from the app (its failure shows
                // when the answer is stored).
                let target = try? await local.readTarget(id: key)
                if target?.madeIDGone == true {
                    throw DepotError(
                        .notFound, "\(key) is an id Depot made whose entity is gone: nothing to ask the server")
                }
                await reads.begin(storage)
                return try await conditionalRead(id: target?.moved ?? key)
            },
            local: { _ in RemoteAnswer(entity: try await local.read(id: key)) },
            afterRemote: { answer in
                // What the store holds answers: the app's pending change on top of the server's.
                let kept = try await local.storeAnswers([answer], reads: reads)
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
    ///
    /// Under a local-first rule (target `.local`, fallback `.remote`, `synchronize`), the first
    /// read of a query the store holds no list of asks the server, stores its answer, and then
    /// answers from the store; later reads of that query answer from the store alone. Offline, the
    /// store answers with what it has and ``Sourced/synchronizationError`` says the list may be
    /// incomplete.
    public func readAll(query: [String: String] = [:]) -> Promise<Sourced<[Entity]>> {
        let rule = strategy.rule(for: .readAll)
        if rule.target == .local, rule.fallback == .remote, rule.synchronize {
            return readAllFillingFirst(query: query)
        }
        guard rule.target == .remote, rule.cache != .revalidate else { return readAllThrough(query: query) }
        return Promise {
            if let (answer, revalidate) = try await Self.unlessFallback({
                try await cachedListAnswer(queryItems: query.sortedQueryItems, use: rule.cache)
            }) {
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

    /// ``readAll(query:)`` asking the server first (conditionally), as its rule says (or as
    /// `rule` says, when given). With `fills`, a stored remote answer also marks that list as
    /// filled (``FilledLists``).
    func readAllThrough(query: [String: String], rule: Rule? = nil, fills: String? = nil) -> Promise<Sourced<[Entity]>>
    {
        let (local, storage) = (self.local, self.storage)
        // The key the server echoes a client's id under, when the repository synchronizes.
        let identityKey = (self as? any SynchronizableRepository)?.synchronization.identityKey
        // A write's answer stored while the read is out is newer than the read's answers.
        let reads = DeliveryLog.Scope()
        let held = LockedValue<[String: StoredRecord?]>([:])
        return run(
            .readAll, rule: rule,
            remote: {
                await reads.begin(storage)
                return try await conditionalReadAll(queryItems: query.sortedQueryItems)
            },
            local: { _ in
                // A stored row the model cannot read is reported as a pull reports it; the
                // readable rows answer.
                let (entities, unreadable) = try await local.readableAll(Criteria(query: query))
                return ListAnswer(answers: entities.map { RemoteAnswer(entity: $0) }, unreadable: unreadable)
            },
            afterRemote: { answer in
                // What the store holds answers: the app's pending changes on top of the server's.
                let kept = try await local.storeAnswers(
                    answer.answers, reads: reads, list: true, page: answer.page,
                    quarantining: answer.unreadable, identityKey: identityKey)
                held.withLock { $0 = kept }
                if let fills {
                    try await storage.upsert(
                        StoredRecord(collection: FilledLists.collection, id: fills, object: [:], syncState: .synced))
                }
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

    /// Sends a locally created entity to the server and stores the server's answer in its place
    /// (under the server's id, if it chose another).
    @discardableResult
    static func sendCreated(_ created: Entity, local: LocalStore<Entity>, remote: RemoteRepository<Entity>) async throws
        -> RemoteAnswer<Entity>
    {
        let id = created.id.pathComponent
        let (storage, collection) = (local.storage, local.collection)
        let made = try await storage.transaction { tx in try tx.isTemporaryID(collection: collection, id: id) }
        let answer = try await remote.createAnswer(
            body: try remote.encoded(created), keepJSON: true, temporaryID: made ? id : nil
        ).value
        // A write's answer, by the one record-write function: the id moves (remembered) when the
        // server chose another, the delivery is noted, the cached answers it made stale go.
        try await local.storeWriteAnswer(answer, sentID: created.id.pathComponent)
        return answer
    }

    /// The local store as local writes see it: each write recorded in the outbox with the body it
    /// sends.
    var outboxLocal: LocalStore<Entity> {
        let (remote, configuration) = (self.remote, self.configuration)
        return LocalStore(
            storage: storage, collection: collection, outboxPayload: { try remote.encoded($0, object: $1) },
            serverOwnedKeys: configuration.serverOwnedKeys, coding: configuration.coding,
            references: configuration.references, account: store.account)
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

    /// ``outboxEngine``, made when a write first needs it: a write recorded locally and left to
    /// a forwarder (a local-only rule) never does, and making the engine (a channel with its
    /// routes and body shape) is a good share of such a write's own work.
    var outboxEngineLater: @Sendable () -> OutboxEngine {
        let repository = self
        return { repository.outboxEngine }
    }

    /// Runs `operation` by its rule: target, then fallback on a qualifying error, then the
    /// synchronizing step towards the other side, except towards a server that just failed.
    /// `local` is told whether the remote side was tried first and failed in a way that may have
    /// reached the server (so a write it records may already be there). `rule`, when given, takes
    /// the place of the strategy's rule for `operation`.
    func run<Value: Sendable>(
        _ operation: RepositoryOperation,
        rule: Rule? = nil,
        remote: @escaping @Sendable () async throws -> Value,
        local: @escaping @Sendable (_ mayBeOnServer: Bool) async throws -> Value,
        afterRemote: (@Sendable (Value) async throws -> Void)?,
        afterLocal: (@Sendable (Value) async throws -> Void)?
    ) -> Promise<Sourced<Value>> {
        run(
            operation, rule: rule, remote: remote, local: local, afterRemote: afterRemote, afterLocal: afterLocal,
            output: { $0 })
    }

    /// ``run(_:remote:local:afterRemote:afterLocal:)`` answering with `output` of the value, worked
    /// out in the operation's own task: a write answers with its entity without a further hop
    /// (a `map` on the promise would cost a queue hop and a thread wake-up per write).
    func run<Value: Sendable, Output: Sendable>(
        _ operation: RepositoryOperation,
        rule: Rule? = nil,
        remote: @escaping @Sendable () async throws -> Value,
        local: @escaping @Sendable (_ mayBeOnServer: Bool) async throws -> Value,
        afterRemote: (@Sendable (Value) async throws -> Void)?,
        afterLocal: (@Sendable (Value) async throws -> Void)?,
        output: @escaping @Sendable (Value) -> Output
    ) -> Promise<Sourced<Output>> {
        let rule = rule ?? strategy.rule(for: operation)
        @Sendable func attempt(_ side: Origin, after failure: DepotError? = nil) async throws -> Value {
            do {
                // A remote failure the server may have applied: a local write records it as sent.
                return try await side == .remote
                    ? remote() : local(failure.map { !$0.serverCannotHaveApplied } ?? false)
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
            return answer.map(output)
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

extension CRUDNetworkingStorageRepository {
    /// `body`'s answer, or nil when it fails as a remote read that falls back does (the cache's
    /// look-up runs the interceptors, which may need the network): the read then goes the way
    /// its rule says, and its fallback answers from the store.
    static func unlessFallback<Answer: Sendable>(_ body: () async throws -> Answer?) async throws -> Answer? {
        do {
            return try await body()
        } catch let error as DepotError where error.warrantsFallback(from: .remote) && !error.isCancellation {
            return nil
        }
    }
}
