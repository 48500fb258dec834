import Foundation

/// A field of an entity that holds the id of an entity of another collection: an item's
/// `listID` naming its list.
///
/// Declared on the referring repository's ``RepositoryConfiguration/references``, it lets a child
/// point at a parent created offline. When the parent's id is one Depot made (a ``TemporaryID``)
/// and its create is delivered, the server's id replaces the temporary one in the child's record
/// and in the child's queued writes, in the transaction that stores the parent's answer; until
/// then, a queued write of the child that names the temporary id is held back, so the server
/// never sees it. When that create will never go (the app discarded it, or deleted the parent
/// before it was sent), the child's write is refused instead of held for ever, unsent: the
/// forwarder reports it in ``ForwardingReport/rejected``, its ``OutboxRejection`` without a
/// status and with a message naming the parent, and the app resolves it as any refusal (``Forwarder/retry(_:)`` after pointing the child
/// elsewhere, or ``Forwarder/discard(_:)``).
///
/// ```swift
/// var configuration = RepositoryConfiguration()
/// configuration.references = [EntityReference(key: "listID", collection: "lists")]
/// ```
public struct EntityReference: Sendable, Hashable {
    /// The key of the referring entity's JSON object that holds the id, as the server spells it.
    public var key: String
    /// The collection of the entity it names (the parent repository's ``CRUDNetworkingStorageRepository/collection``).
    public var collection: String

    /// Declares that `key` holds the id of an entity of `collection`.
    public init(key: String, collection: String) {
        self.key = key
        self.collection = collection
    }
}
