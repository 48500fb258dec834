import Foundation

/// A networking + storage repository that synchronizes its whole collection in one call: local
/// changes are sent in batches, local deletes one by one, then the server's list is read page by
/// page into the store.
///
/// ```swift
/// struct CachedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
///     typealias Entity = Message
///     let store: Networking
///     let storage: Storage
///     let path = "messages"
///     var synchronization: SynchronizationConfiguration {
///         SynchronizationConfiguration(batchSize: 100, pagination: .pageQuery(page: "_page", limit: "_limit", size: 500))
///     }
/// }
/// let report = try await cached.synchronize().value
/// print(report.pushed, report.pulled, report.deleted, report.failed)
/// ```
///
/// - Push, as ``SynchronizationConfiguration/pushMode`` says (``PushMode/automatic`` by default:
///   the batch route while the server has one, else entity by entity through the outbox's path,
///   each write under its own `Idempotency-Key`). In a batch, every `.created` and `.updated`
///   record goes, `batchSize` at a time, as a JSON array to
///   the ``RepositoryOperation/synchronize`` route (`POST /path/collection`). The reply is matched
///   to what was sent by identity (``SynchronizationConfiguration/identityKey``), never by
///   position: each match is stored `.synced` with the server's object as its snapshot, unless the
///   record changed locally in the meantime. An entity the reply lacks or repeats, and a reply that
///   is not an array, give a `DepotError` `.decoding` in ``SynchronizationReport/errors``; those
///   entities stay unsynced and count as ``SynchronizationReport/failed``.
/// - Deletes: each `.deleted` tombstone is sent as `DELETE /path/:id`; a 2xx or a 404 removes it.
/// - Pull: each page is merged in one transaction: synced records are replaced, records with
///   unsynced changes are kept (``SynchronizationReport/conflicts``), records the server did not
///   list are kept unless ``SynchronizationConfiguration/prune`` is on, which removes only synced
///   ones and only after a complete pull. One page is held at a time. A row the entity cannot be
///   read from is skipped, the rest merged, and reported in ``SynchronizationReport/unreadable``
///   (an incremental pull's cursor stays at or before it, so the next pull brings it again).
public protocol SynchronizableRepository: CRUDNetworkingStorageRepository {
    /// Batch size, pagination, pruning; ``SynchronizationConfiguration/init(batchSize:pagination:prune:identityKey:query:push:pushMode:maximumConcurrency:incremental:)``'s
    /// defaults unless the repository says otherwise.
    var synchronization: SynchronizationConfiguration { get }
}

extension SynchronizableRepository {
    /// Batches of 100, one unpaged `GET`, no pruning.
    public var synchronization: SynchronizationConfiguration { SynchronizationConfiguration() }

    /// Sends local changes, then reads the server's list into the store.
    ///
    /// ```swift
    /// let report = try await cached.synchronize { soFar in print(soFar.pushed, soFar.pulled) }.value
    /// ```
    ///
    /// - Parameter progress: called after each batch, each round of deletes and each page, with
    ///   the counts so far (on the task running the synchronization; keep it short).
    /// - Returns: the final counts. A failed request does not reject the promise: it is in
    ///   ``SynchronizationReport/errors`` and what it concerned stays unsynced.
    /// - Throws: (in the promise) `DepotError` `.storage` when the local store fails, `.cancelled`
    ///   when the promise or its task is cancelled.
    public func synchronize(progress: (@Sendable (SynchronizationReport) -> Void)? = nil)
        -> Promise<SynchronizationReport>
    {
        let synchronizer = Synchronizer<Entity>(
            store: store,
            storage: storage,
            collection: collection,
            configuration: synchronization,
            batchRoute: route(for: .synchronize),
            deleteRoute: route(for: .delete),
            listRoute: route(for: .readAll),
            headers: configuration.requestHeaders,
            envelope: configuration.collectionEnvelope,
            createRoute: route(for: .create),
            channel: OutboxChannel(self),
            identifyingHeaders: configuration.identifyingHeaders,
            shape: BodyShape(configuration, entity: Entity.self)
        )
        return Promise { try await synchronizer.run(progress: progress) }
    }

    /// The pulled rows of this collection the app could not read, kept raw in the store's
    /// quarantine (oldest first): out of local reads, read again at the start of every pull and
    /// merged once the app can read them. See ``UnreadableRow``.
    ///
    /// ```swift
    /// for row in try await notes.quarantined().value {
    ///     print(row.id ?? "?", row.firstSeen as Any, row.error.message)
    /// }
    /// ```
    public func quarantined() -> Promise<[UnreadableRow]> {
        let (storage, collection) = (self.storage, self.collection)
        return Promise { try await Quarantine.rows(of: collection, in: storage) }
    }

    /// Forgets the stored cursor of every incremental pull of this collection: the next
    /// `synchronize()` reads the whole list again (and may prune).
    ///
    /// - Throws: (in the promise) `DepotError` `.storage` when the store fails.
    @discardableResult
    public func resetPullCursor() -> Promise<Void> {
        let (storage, collection) = (self.storage, self.collection)
        return Promise { try await storage.resetPullCursors(collection: collection) }
    }
}
