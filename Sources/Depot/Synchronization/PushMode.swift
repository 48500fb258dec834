import Foundation

/// How `synchronize()` sends local creates and updates.
///
/// A batch (``batch(_:)``, ``bulkCollection``, ``automatic``) is an identity: it goes under an
/// `Idempotency-Key` of its own (never one entry's), stored with its entries before the send.
/// Until its answer is known, those entries go nowhere else (the forwarder and remote-first
/// writes leave them be), and the next `synchronize()` sends the same batch again, under the same
/// key, before anything else. A refusal of the whole batch (a 4xx but 408, 409, 425 and 429) or an
/// absent route frees them.
///
/// ```swift
/// SynchronizationConfiguration(pushMode: .each)                            // no batch endpoint
/// SynchronizationConfiguration(pushMode: .batch(Route(.post, "messages/bulk")))
/// ```
public enum PushMode: Sendable, Hashable {
    /// A JSON array of the changed entities to `route`, the reply matched by identity (see
    /// ``SynchronizationConfiguration/identityKey``). Deletes go one by one.
    case batch(Route)
    /// New entities as one JSON array POSTed to the collection itself (Django REST Framework with
    /// `many=True`, PostgREST); the reply is matched by identity when it echoes the ids sent, else
    /// by position when it has one object per entity sent (servers that assign ids answer in
    /// order). Updates and deletes go entity by entity, as with ``each``.
    case bulkCollection
    /// Every pending write through the outbox's per-entity path (create, update, patch, delete,
    /// each under its own `Idempotency-Key`), ``SynchronizationConfiguration/maximumConcurrency``
    /// entities at a time: exactly once per write with a server that honours keys.
    case each
    /// The repository's ``RepositoryOperation/synchronize`` route as a batch, tried once per
    /// session (its ``Networking/routeMemory``; each time by a transport without one): a 404, 405
    /// or 501, or a redirect, means the server has no batch endpoint, and the push goes ``each``
    /// from then on (the report's notes say so). The default.
    case automatic
}

/// How a batch route's absence shows.
enum BatchRouteAnswer {
    /// Whether `error` says the batch route does not exist (rather than that the batch failed).
    static func saysMissing(_ error: DepotError) -> Bool {
        guard let status = error.status else { return false }
        return status == 404 || status == 405 || status == 501 || (300..<400).contains(status)
    }
}
