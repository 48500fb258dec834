import Depot
import Foundation

/// The entity the crash test writes: flat fields, one of them optional, so merge patches set and
/// remove members.
struct Note: Codable, Identifiable, Sendable, Hashable {
    /// Chosen by the client, so a create's id is known before the server answers.
    var id: String
    /// Changed by updates and patches.
    var text: String
    /// Bumped by every write, so no write leaves the entity as it was.
    var revision: Int
    /// Set and removed (`null` in a merge patch) by patches.
    var tag: String?
}

/// The `notes` collection over the stub server and the SQLite file.
struct Notes: CRUDNetworkingStorageRepository {
    typealias Entity = Note
    /// The session to the stub server.
    let store: Networking
    /// The SQLite file shared by the parent and its children.
    let storage: Storage
    /// The rule every operation follows.
    let strategy: Strategy
    /// The collection's path.
    let path = "notes"

    /// The parent's repository: writes go to the local store and its outbox only, never to the
    /// server (a local target with no fallback and no synchronizing step).
    static func offline(storage: Storage, store: Networking) -> Notes {
        Notes(store: store, storage: storage, strategy: Strategy(Rule(target: .local, synchronize: false)))
    }
}
