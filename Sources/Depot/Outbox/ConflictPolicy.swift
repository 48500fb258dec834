import Foundation

/// What the outbox does when the server refuses a write because the entity changed on the server
/// (409 Conflict, or 412 Precondition Failed to a stale `If-Match`).
///
/// ```swift
/// struct CachedMessages: CRUDNetworkingStorageRepository {
///     …
///     var conflictPolicy: ConflictPolicy {
///         .custom { conflict in
///             var merged = conflict.server ?? [:]
///             merged["text"] = conflict.local?["text"]
///             return .merge(merged)
///         }
///     }
/// }
/// ```
public enum ConflictPolicy: Sendable {
    /// Keep the server's version: it is stored as synced and the local write is dropped (reported
    /// as a ``ForwarderEvent/conflict(_:_:)`` event and in ``ForwardingReport/conflicts``).
    case serverWins
    /// Keep the local write: it is sent again with the server's fresh `ETag` (a create of an id
    /// the server has becomes a `PUT`; a delete is sent again).
    case clientWins
    /// Ask: the closure gets both versions and chooses.
    case custom(@Sendable (OutboxConflict) async throws -> ConflictResolution)
}

/// Both sides of a refused write, for a ``ConflictPolicy/custom(_:)`` closure.
public struct OutboxConflict: Sendable {
    /// The entry the server refused.
    public var entry: OutboxEntry
    /// The status of the refusal: 409 or 412.
    public var status: Int
    /// The local record's object; nil when it was deleted locally.
    public var local: JSONObject?
    /// The server's version, read just now; nil when the server no longer has the entity.
    public var server: JSONObject?
    /// The `ETag` of ``server``, if the server sent one.
    public var serverETag: String?

    /// Makes a conflict.
    public init(entry: OutboxEntry, status: Int, local: JSONObject?, server: JSONObject?, serverETag: String?) {
        self.entry = entry
        self.status = status
        self.local = local
        self.server = server
        self.serverETag = serverETag
    }
}

/// How one conflict ends.
public enum ConflictResolution: Sendable, Hashable {
    /// The server's version stays and is stored locally.
    case serverWins
    /// The local write is sent again over the server's version.
    case clientWins
    /// This object is sent (`PUT`) over the server's version and stored.
    case merge(JSONObject)
}
