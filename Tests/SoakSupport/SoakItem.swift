import Depot
import Foundation

/// The entity the soak writes: a client-chosen id and a value each write makes unique.
public struct SoakItem: Codable, Identifiable, Sendable, Equatable {
    /// The client-chosen id, `i<n>`.
    public var id: String
    /// The value of the write that made this version, `v<operation index>`.
    public var value: String

    /// Makes an item.
    public init(id: String, value: String) {
        self.id = id
        self.value = value
    }
}

/// The soak's repository: CRUD, patch, outbox and synchronization over `items`, paged a few at a
/// time so pulls cross page boundaries.
public struct SoakItems: CRUDNetworkingStorageRepository, SynchronizableRepository {
    /// ``SoakItem``.
    public typealias Entity = SoakItem
    /// The transport.
    public let store: Networking
    /// The local store.
    public let storage: Storage
    /// `items`.
    public let path = "items"
    /// The rule for every operation.
    public var strategy: Strategy
    /// ``ConflictPolicy/clientWins``: the soak's 409 and 412 are injected, not real edits by
    /// someone else, so the program's write must still land.
    public var conflictPolicy: ConflictPolicy { .clientWins }
    /// Pages of 5, no prune, and no batch push: the program's writes reach the server through the
    /// outbox only. (A batch whose answer is lost is re-sent entry by entry under other keys:
    /// the same state, but applied twice; the soak found it and a follow-up issue tracks it.)
    public var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            batchSize: 4, pagination: .pageQuery(page: "_page", limit: "_limit", size: 5), push: false)
    }

    /// The road this repository stands for (`remoteFirst`, `localFirst`, `forwarder`, `autoSync`),
    /// sent as `X-Soak-Road` so a failing round's server trace shows which road sent what.
    public var road: String?
    /// `X-Soak-Road` when ``road`` is set.
    public var configuration: RepositoryConfiguration {
        RepositoryConfiguration(headers: road.map { ["X-Soak-Road": $0] } ?? [:])
    }

    /// Makes the repository; `road` names it in the server's trace.
    public init(store: Networking, storage: Storage, strategy: Strategy, road: String? = nil) {
        self.store = store
        self.storage = storage
        self.strategy = strategy
        self.road = road
    }

    /// Local writes left to the forwarders (`shortLease` rounds with one road): every send is a
    /// forwarder's, under its lease.
    public static let queued = Strategy(Rule(target: .local, synchronize: false))

    /// The two strategies the soak draws from.
    public static let strategies: [(name: String, strategy: Strategy)] = [
        ("remoteFirst", .remoteFirst), ("localFirst", .localFirst),
    ]
}
