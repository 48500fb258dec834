import Depot
import Foundation

/// The entity the fleet crash test writes. ``name`` is the client's own name for it, which never
/// changes: in a collection where the server assigns ids, ``id`` starts as a temporary id and
/// becomes the server's, while ``name`` still tells which entity an object is.
public struct FleetItem: Codable, Identifiable, Sendable, Hashable {
    /// The id: the name in `items`, a temporary id and then the server's in `tickets`.
    public var id: String
    /// The client's name for the entity: `items/i-3`, `tickets/t-7`.
    public var name: String
    /// The number of the write that made this version: unique across the run and growing, so the
    /// server's applied writes tell which write they were and in which order they came.
    public var revision: Int
    /// Changed by updates and patches.
    public var text: String
    /// Set and removed (`null` in a merge patch) by patches.
    public var tag: String?

    /// Makes an item.
    public init(id: String, name: String, revision: Int, text: String, tag: String?) {
        self.id = id
        self.name = name
        self.revision = revision
        self.text = text
        self.tag = tag
    }
}

/// A collection of ``FleetItem`` over a stub server and a shared store: `items` (ids chosen by the
/// client) or `tickets` (ids assigned by the server).
public struct FleetItems: CRUDNetworkingStorageRepository {
    /// ``FleetItem``.
    public typealias Entity = FleetItem
    /// The transport.
    public let store: Networking
    /// The store every replica shares.
    public let storage: Storage
    /// `items` or `tickets`.
    public let path: String
    /// Local writes only: the forwarders send them.
    public let strategy = Strategy(Rule(target: .local, synchronize: false))

    /// The collection whose ids the client chooses.
    public static let clientIDs = "items"
    /// The collection whose ids the server assigns.
    public static let serverIDs = "tickets"

    /// Makes the repository of collection `path`.
    public init(store: Networking, storage: Storage, path: String) {
        self.store = store
        self.storage = storage
        self.path = path
    }

    /// Both collections' repositories, `items` first.
    public static func both(store: Networking, storage: Storage) -> [FleetItems] {
        [clientIDs, serverIDs].map { FleetItems(store: store, storage: storage, path: $0) }
    }
}
