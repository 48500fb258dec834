import Foundation

/// A repository's ``SynchronizableRepository/synchronize(progress:)`` as an action: its requests
/// and bytes are counted, and its statistics count the entities it pushed (`pushed`), pulled
/// (`pulled`) and deleted on the server (`deleted`); each batch, round of deletes and page is a
/// progress event.
///
/// ```swift
/// let proxy = executor.execute(SynchronizeAction(cached))
/// let report = try await proxy.result.value
/// print(proxy.statistics.pushed, proxy.statistics.pulled, proxy.statistics.requests)
/// ```
///
/// Its serialization key is `synchronize:<collection>`, so two synchronizations of one
/// collection never run at once on one executor.
///
/// A graceful stop (``ActionProxy/stop()``, ``AutoSync/stop()``, an executor's graceful
/// shutdown) ends it after the entry, batch, delete or page in flight, its answer stored: the
/// report has ``SynchronizationReport/stoppedEarly``, and what is left stays pending for the next
/// run. A pull reads one page ahead while it merges a page: a stop seen after that merge drops the
/// page read ahead (its request cancelled, nothing of it stored). A cancellation instead cancels
/// the request in flight.
public struct SynchronizeAction<Repository: SynchronizableRepository>: Action
where Repository.Entity.ID: PathComponentConvertible {
    /// The repository synchronized.
    public let repository: Repository

    /// An action that synchronizes `repository`.
    public init(_ repository: Repository) { self.repository = repository }

    /// `Synchronize <collection>`.
    public var name: String { "Synchronize \(repository.collection)" }

    /// `synchronize:<collection>`.
    public var serializationKey: String? { "synchronize:\(repository.collection)" }

    /// Runs the synchronization through a counting session.
    ///
    /// - Returns: the synchronization's report (a failed request is in its `errors`, not thrown).
    /// - Throws: `DepotError` `.storage` when the local store fails, `.cancelled` when cancelled.
    public func execute(context: ActionContext) async throws -> SynchronizationReport {
        let store = context.counting(repository.store)
        let synchronizer = Synchronizer<Repository.Entity>(
            store: store,
            storage: repository.storage,
            collection: repository.collection,
            configuration: repository.synchronization,
            batchRoute: repository.route(for: .synchronize),
            deleteRoute: repository.route(for: .delete),
            listRoute: repository.route(for: .readAll),
            headers: repository.configuration.requestHeaders,
            envelope: repository.configuration.collectionEnvelope,
            createRoute: repository.route(for: .create),
            channel: OutboxChannel(repository, store: store),
            shouldStop: { context.isStopping },
            identifyingHeaders: repository.configuration.identifyingHeaders,
            shape: BodyShape(repository.configuration, entity: Repository.Entity.self)
        )
        let counted = LockedValue(SynchronizationReport())
        let report = try await synchronizer.run { soFar in
            counted.withLock { last in
                Self.record(from: last, to: soFar, in: context)
                last = soFar
            }
            context.progress(
                completed: soFar.pushed + soFar.deleted + soFar.pulled,
                message: "pushed \(soFar.pushed), deleted \(soFar.deleted), pulled \(soFar.pulled)")
        }
        counted.withLock { last in Self.record(from: last, to: report, in: context) }
        return report
    }

    /// Records the counts `now` has beyond `before`.
    private static func record(
        from before: SynchronizationReport, to now: SynchronizationReport, in context: ActionContext
    ) {
        if now.pushed > before.pushed { context.record(.pushed, now.pushed - before.pushed) }
        if now.pulled > before.pulled { context.record(.pulled, now.pulled - before.pulled) }
        if now.deleted > before.deleted { context.record(.deleted, now.deleted - before.deleted) }
    }
}
