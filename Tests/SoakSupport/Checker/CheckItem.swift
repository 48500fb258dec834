import Depot
import Foundation

/// The entity the model checker writes. `value` is the app's (each write makes it unique); `body`
/// and `viewer` are the server's own: `body` comes in a record's own answer only (a list holds a
/// summary without it), `viewer` names the account that asked (the answer varies by caller).
public struct CheckItem: Codable, Identifiable, Sendable, Equatable {
    /// The id: the app's (`i3`), a temporary one (`tmp-3`) until a server that assigns ids answers,
    /// or the server's (`s1001`).
    public var id: String
    /// The value of the write that made this version, `v<step>` (`o<step>` from another client).
    public var value: String
    /// The server's detail field, `b-<value>`; absent from list summaries.
    public var body: String?
    /// The account the server answered.
    public var viewer: String?
    /// The server's version stamp (rounds with incremental pulls).
    public var updatedAt: Int?
    /// Version 1 of the app's schema field (rounds with ``CheckServerShape/migrates``): `"1"`.
    public var tag: String?
    /// Version 2's name of that field (``CheckAction/migrate`` renames `tag` to it): `"2"`.
    public var label: String?

    enum CodingKeys: String, CodingKey {
        case id, value, body, viewer, tag, label
        case updatedAt = "updated_at"
    }

    /// Makes an item.
    public init(
        id: String, value: String, body: String? = nil, viewer: String? = nil, updatedAt: Int? = nil,
        tag: String? = nil, label: String? = nil
    ) {
        self.id = id
        self.value = value
        self.body = body
        self.viewer = viewer
        self.updatedAt = updatedAt
        self.tag = tag
        self.label = label
    }
}

/// Version 2 of the app's entity: every field of ``CheckItem`` and a new required one, `kind`,
/// that the server has always sent (version 1 ignored it). A v2 read of what v1 stored must still
/// work.
public struct CheckItemV2: Codable, Identifiable, Sendable, Equatable {
    /// As in ``CheckItem``.
    public var id: String
    /// As in ``CheckItem``.
    public var value: String
    /// As in ``CheckItem``.
    public var body: String?
    /// As in ``CheckItem``.
    public var viewer: String?
    /// As in ``CheckItem``.
    public var updatedAt: Int?
    /// The field v2 requires (`item`).
    public var kind: String

    enum CodingKeys: String, CodingKey {
        case id, value, body, viewer, kind
        case updatedAt = "updated_at"
    }
}

/// The checker's repository over `items` (of ``CheckItem``, or of ``CheckItemV2`` for version 2
/// of the app): its strategy, session (account) and push configuration are drawn per step and
/// per round.
public typealias CheckItems = CheckRepository<CheckItem>

/// The checker's repository over `items`, for one version of the entity.
public struct CheckRepository<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingStorageRepository,
    SynchronizableRepository
where Entity.ID == String {
    /// The transport of the step's account.
    public let store: Networking
    /// The round's store.
    public let storage: Storage
    /// `items`.
    public let path = "items"
    /// The step's strategy.
    public var strategy: Strategy
    /// Whether the round's conflict policy is `.clientWins` (else `.serverWins`).
    public var clientWins = false
    /// Where a server-wins round records each conflict its policy decides (nil: not recorded).
    public var conflicts: CheckConflicts?
    /// The round's conflict policy (server wins recorded in ``conflicts``).
    public var conflictPolicy: ConflictPolicy {
        if clientWins { return .clientWins }
        return conflicts?.serverWins ?? .serverWins
    }
    /// Pull in pages; push in a batch when the round's server has a batch route.
    public var synchronization: SynchronizationConfiguration
    /// The keys the app declares as the server's (``CheckServerShape/declaresServerKeys``).
    public var serverOwnedKeys: Set<String>
    /// The request headers that identify the caller besides its credential
    /// (``CheckServerShape/redirectsElsewhere``: `X-API-Key`).
    public var identifyingHeaders: [String] = []
    /// The key lists come under (``CheckServerShape/silentPages``: `rows`), nil for a bare array.
    public var collectionEnvelope: String?
    /// Keys the server owns are not the app's to send; the API key identifies the caller; lists
    /// come under ``collectionEnvelope``.
    public var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.serverOwnedKeys = serverOwnedKeys
        configuration.identifyingHeaders = identifyingHeaders
        configuration.collectionEnvelope = collectionEnvelope
        return configuration
    }

    /// The server's own keys: its detail field, the caller it names and its stamp.
    public static var serverKeys: Set<String> { ["body", "viewer", "updated_at"] }

    /// The same repository for another version of the entity (version 2 of the app).
    public init<Other>(_ other: CheckRepository<Other>) {
        store = other.store
        storage = other.storage
        strategy = other.strategy
        synchronization = other.synchronization
        clientWins = other.clientWins
        conflicts = other.conflicts
        serverOwnedKeys = other.serverOwnedKeys
        identifyingHeaders = other.identifyingHeaders
        collectionEnvelope = other.collectionEnvelope
    }

    /// Makes the repository; `prune` removes local records the server no longer lists after a full
    /// pull; `incremental` pulls what changed since the last pull (`updated_after`, `deleted`); `clientWins`
    /// resolves conflicts for the app's write; `declaresServerKeys` names ``serverKeys`` as the server's;
    /// `linkPaging` pulls page by page through the server's `Link` headers; `declaresAPIKey` declares
    /// `X-API-Key` in ``RepositoryConfiguration/identifyingHeaders``; `conflicts` records the
    /// conflicts a server-wins policy decides; `silentPages` reads lists under `rows` and pulls
    /// with ``Pagination/automatic`` (``CheckServerShape/silentPages``).
    public init(
        store: Networking, storage: Storage, strategy: Strategy, batch: Bool, assignsIDs: Bool, pageSize: Int,
        prune: Bool = false, incremental: Bool = false, clientWins: Bool = false, declaresServerKeys: Bool = false,
        linkPaging: Bool = false, declaresAPIKey: Bool = false, conflicts: CheckConflicts? = nil,
        silentPages: Bool = false
    ) {
        self.store = store
        self.storage = storage
        self.strategy = strategy
        self.clientWins = clientWins
        self.conflicts = conflicts
        serverOwnedKeys = declaresServerKeys ? Self.serverKeys : []
        identifyingHeaders = declaresAPIKey ? ["X-API-Key"] : []
        collectionEnvelope = silentPages ? "rows" : nil
        let pagination: Pagination =
            if linkPaging { .linkHeader } else if silentPages { .automatic } else {
                .pageQuery(page: "_page", limit: "_limit", size: pageSize)
            }
        synchronization = SynchronizationConfiguration(
            batchSize: 4,
            pagination: pagination,
            prune: prune,
            identityKey: assignsIDs ? "client_id" : "id",
            pushMode: batch ? .batch(Route(.post, "items/collection")) : .each,
            incremental: incremental
                ? IncrementalPull(
                    parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted"))
                : nil)
    }
}
