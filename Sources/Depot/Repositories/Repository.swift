import Foundation

/// A collection of entities of one type: the root of Depot's repository protocols.
public protocol Repository: Sendable {
    /// The model type: `Identifiable & Sendable`, mapped to JSON through `Codable` or through
    /// ``DictionaryInitializable`` / ``DictionaryRepresentable``.
    associatedtype Entity: Identifiable & Sendable where Entity.ID: PathComponentConvertible
}

/// The operations a repository derives; routes can be overridden per operation.
public enum RepositoryOperation: String, Hashable, Sendable, CaseIterable {
    /// `POST /path`.
    case create
    /// `GET /path/:id`.
    case read
    /// `GET /path?query`.
    case readAll
    /// `PUT /path/:id`.
    case update
    /// `PATCH /path/:id`.
    case patch
    /// `DELETE /path/:id`.
    case delete
    /// `POST /path/collection`.
    case synchronize
}

/// A method and a path template for one operation; `:id` in the path is replaced by the
/// percent-encoded id.
///
/// ```swift
/// Route(.get, "/households/42/people")   // readAll of a nested collection
/// ```
public struct Route: Sendable, Hashable {
    /// The method.
    public var method: NetworkRequest.Method
    /// The path template below the base URL; `:id` stands for the entity's id.
    public var path: String

    /// Makes a route.
    public init(_ method: NetworkRequest.Method, _ path: String) {
        self.method = method
        self.path = path
    }

    /// The path with `:id` replaced by `id`, percent-encoded as one path component.
    public func resolvedPath(id: String?) -> String {
        guard let id else { return path }
        // Most templates hold `:id` once, at the end (`messages/:id`, `messages/:id/`): split there
        // rather than search and replace. Any other template takes the general path.
        if path.utf8.count(where: { $0 == UInt8(ascii: ":") }) == 1 {
            for suffix in [":id", ":id/"] where path.hasSuffix(suffix) {
                return String(path.dropLast(suffix.count)) + encodePathComponent(id) + suffix.dropFirst(3)
            }
        }
        return path.replacingOccurrences(of: ":id", with: encodePathComponent(id))
    }

    /// ``resolvedPath(id:)`` for a request about to be sent: every id Depot sends goes through here.
    ///
    /// An id of `.` or `..` is percent-encoded (`%2E`, `%2E%2E`) by ``encodePathComponent(_:)``,
    /// so it never climbs out of the collection.
    ///
    /// - Throws: `DepotError` `.invalidRequest` for an empty id, which would address the whole
    ///   collection (`DELETE /people/` deletes every row on some servers).
    func checkedPath(id: String?) throws -> String {
        if let id, id.isEmpty {
            throw DepotError(.invalidRequest, "an empty id would address the whole collection \(path)")
        }
        if let unbound = path.split(separator: "/").first(where: { $0.hasPrefix(":") && $0 != ":id" }) {
            throw DepotError(
                .invalidRequest,
                "the path \(path) needs a value for \(unbound): give it in the repository's pathParameters")
        }
        return resolvedPath(id: id)
    }

    /// `path` with each `:name` segment (other than `:id`) replaced by `parameters[name]`,
    /// percent-encoded as one path component; a name without a value, or with an empty one, stays
    /// as it is (``checkedPath(id:)`` refuses it before anything is sent).
    static func binding(_ path: String, _ parameters: [String: String]) -> String {
        guard !parameters.isEmpty, path.contains(":") else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix(":"), segment != ":id", let value = parameters[String(segment.dropFirst())],
                !value.isEmpty
            else { return String(segment) }
            let encoded = encodePathComponent(value)
            // A value that starts with ":" must not read as a name still to bind.
            return encoded.hasPrefix(":") ? "%3A" + encoded.dropFirst() : encoded
        }
        return segments.joined(separator: "/")
    }
}

/// How nil attributes of an entity are sent on PUT.
public enum NilEncoding: Sendable, Hashable {
    /// Send `"key": null`, so the server clears the attribute (the default).
    case null
    /// Leave the key out.
    case omit
}

/// Per-repository choices: envelope keys, nil encoding, route overrides, extra headers,
/// conditional writes and trailing slashes.
public struct RepositoryConfiguration: Sendable {
    /// The key single objects are wrapped in, e.g. `"data"` for `{"data": {…}}`; nil for none.
    public var envelope: String?
    /// The key collections are wrapped in, e.g. `"resources"` for `{"resources": […]}`; nil for none.
    public var collectionEnvelope: String?
    /// Whether nil attributes are sent as `null` or left out on PUT and POST.
    public var nilEncoding: NilEncoding
    /// Routes that replace the derived ones, per operation.
    public var routes: [RepositoryOperation: Route]
    /// Headers added to every request of this repository.
    public var headers: [String: String]
    /// Whether update, patch and delete send `If-Match` with the strong `ETag` of the server's last
    /// answer for the entity (a weak one is never sent), so a stale write is refused with a 412
    /// (`.conflict`) instead of overwriting someone else's change. On by default.
    public var conditionalWrites: Bool
    /// Whether derived item routes end with a slash (`/messages/1/`) rather than not
    /// (`/messages/1`, the default). Collection routes keep the slash `path` is written with.
    public var itemTrailingSlash: Bool
    /// How a create goes out: `.post` (the default) sends `POST /path` and the server may assign
    /// the id; `.put` sends `PUT /path/:id` with the client's id, so a create repeated by a server
    /// that ignores `Idempotency-Key` replaces the same object instead of making a second one.
    /// Any other method is a programming error.
    public var createMethod: NetworkRequest.Method {
        didSet { precondition(createMethod == .post || createMethod == .put, "createMethod is .post or .put") }
    }
    /// How a PATCH body goes out: `.mergePatch` (RFC 7396, the default), `.json` (the partial
    /// object as `application/json`) or `.jsonPatch` (RFC 6902). A 415 answer is negotiated
    /// (see ``PatchFormat``).
    public var patchFormat: PatchFormat
    /// How long, in seconds, a GET answer stays fresh in the store's HTTP cache when the server
    /// sends neither `Cache-Control: max-age` nor `Expires` (see ``CacheUse``); nil (the default):
    /// such an answer is never fresh, and is revalidated (conditionally) on each read.
    public var defaultMaxAge: Int?
    /// The clock the store's HTTP cache reads freshness by; the system's by default. Inject a
    /// `ManualForwarderClock` (DepotTesting) to test expiry without waiting.
    public var cacheClock: any ForwarderClock = SystemForwarderClock()
    /// Request headers that identify a caller beyond `Authorization`, `Cookie` and
    /// `Proxy-Authorization` (an API key header, a tenant header): every answer the store's HTTP
    /// cache keeps varies on them, whatever the server's `Vary` says, so one caller never gets
    /// another's cached answer. Empty by default.
    public var identifyingHeaders: [String] = []
    /// Keys the server owns (`updated_at`, `created_at`; `id` for a server that refuses it in a
    /// body): left out of every write body, on every road, and never part of a pending local
    /// change (a read shows the server's value for them under the app's edit). See
    /// <doc:WorkingWithRealServers#Keys-the-server-owns>. Empty by default.
    public var serverOwnedKeys: Set<String> = []
    /// The key every write body (create, update, PATCH, a batch) is wrapped in, e.g. `"data"` for
    /// a server that takes `{"data": {…}}`; nil (the default) sends the bare object. Set it to
    /// ``envelope`` for a server that takes what it answers.
    public var requestEnvelope: String? = nil
    /// The JSON:API resource every body is written as and every answer read from (see
    /// ``jsonAPI(type:clientGeneratedIDs:)``); nil (the default): plain JSON objects.
    public var jsonAPIResource: JSONAPIResource? = nil
    /// The method of ``RepositoryOperation/update``: `.put` (the default) or `.patch` for a server
    /// that takes whole objects only by PATCH (JSON:API).
    public var updateMethod: NetworkRequest.Method = .put
    /// How `Codable` entities spell dates and keys (``EntityCoding``), on every road: reads,
    /// pulls, write answers, outbox payloads, the batch and the stored copies. `Foundation`'s
    /// defaults unless told; set `EntityCoding(dates: .iso8601)` for a server that writes
    /// `"2026-11-28T19:28:05.981Z"`.
    public var coding: EntityCoding = .default
    /// The keys of this collection's objects that hold ids of other collections' entities, e.g.
    /// `[EntityReference(key: "listID", collection: "lists")]` for an item naming its list. A
    /// parent created offline gets an id Depot made; once its create is delivered, a stored child
    /// and its queued writes name the server's id, and until then a queued write of a child
    /// naming the temporary id waits. See <doc:StoreAndForward#References-to-entities-created-offline>.
    /// Empty by default.
    public var references: [EntityReference] = []

    /// Makes a configuration.
    public init(
        envelope: String? = nil,
        collectionEnvelope: String? = nil,
        nilEncoding: NilEncoding = .null,
        routes: [RepositoryOperation: Route] = [:],
        headers: [String: String] = [:],
        conditionalWrites: Bool = true,
        itemTrailingSlash: Bool = false,
        createMethod: NetworkRequest.Method = .post,
        patchFormat: PatchFormat = .mergePatch,
        defaultMaxAge: Int? = nil
    ) {
        precondition(createMethod == .post || createMethod == .put, "createMethod is .post or .put")
        self.envelope = envelope
        self.collectionEnvelope = collectionEnvelope
        self.nilEncoding = nilEncoding
        self.routes = routes
        self.headers = headers
        self.conditionalWrites = conditionalWrites
        self.itemTrailingSlash = itemTrailingSlash
        self.createMethod = createMethod
        self.patchFormat = patchFormat
        self.defaultMaxAge = defaultMaxAge.map { max(0, $0) }
    }
}

/// A repository backed by a remote REST collection at `path`.
public protocol NetworkingRepository: Repository {
    /// The transport: ``NetworkingSession`` or any ``Networking``.
    var store: Networking { get }
    /// The collection's path below the store's base URL, e.g. `"messages"`. It may hold named
    /// parameters, `"households/:household/people"`, bound from ``pathParameters``.
    var path: String { get }
    /// Values for the `:name` segments of ``path`` (and of route overrides), each percent-encoded
    /// as one path component: `["household": "Ann Lee"]` makes `households/Ann%20Lee/people`. A
    /// segment left without a value makes every request fail with `.invalidRequest` before it is
    /// sent. Default: none.
    var pathParameters: [String: String] { get }
    /// Envelopes, nil encoding, route overrides. Default: none of them.
    var configuration: RepositoryConfiguration { get }
    /// The server's last answer per entity id, refreshed by every answer and read by conditional
    /// writes and PATCH diffs; nil (the default) keeps none. ``PatchableRepository`` supplies its
    /// ``PatchableRepository/snapshots``.
    var snapshotCache: SnapshotCache? { get }
}

extension NetworkingRepository {
    /// No envelopes, nil sent as `null`, derived routes.
    public var configuration: RepositoryConfiguration { RepositoryConfiguration() }

    /// None: answers are not remembered.
    public var snapshotCache: SnapshotCache? { nil }

    /// None: the path has no named parameters.
    public var pathParameters: [String: String] { [:] }

    /// The route for `operation`: the override if there is one, else the derived one.
    ///
    /// A `path` written with a trailing slash (`"messages/"`) keeps it on the collection routes
    /// (`POST /messages/`, `GET /messages/`); item routes end with a slash only when
    /// ``RepositoryConfiguration/itemTrailingSlash`` says so.
    public func route(for operation: RepositoryOperation) -> Route {
        route(for: operation, configuration: configuration)
    }

    /// ``route(for:)`` with the configuration already read (it may be computed on each access).
    func route(for operation: RepositoryOperation, configuration: RepositoryConfiguration) -> Route {
        let parameters = pathParameters
        if !configuration.routes.isEmpty, var route = configuration.routes[operation] {
            route.path = Route.binding(route.path, parameters)
            return route
        }
        let path = Route.binding(self.path, parameters)
        let collection = path.hasSuffix("/") ? String(path.dropLast()) : path
        let item = collection + (configuration.itemTrailingSlash ? "/:id/" : "/:id")
        switch operation {
        case .create: return configuration.createMethod == .put ? Route(.put, item) : Route(.post, path)
        case .read: return Route(.get, item)
        case .readAll: return Route(.get, path)
        case .update: return Route(configuration.updateMethod, item)
        case .patch: return Route(.patch, item)
        case .delete: return Route(.delete, item)
        case .synchronize: return Route(.post, collection + "/collection")
        }
    }
}

/// The empty success of a call whose answer has no useful body (`DELETE`, say).
public struct Okay: Sendable, Hashable {
    /// The status the server answered with.
    public var status: Int
    /// Makes an Okay.
    public init(status: Int = 204) { self.status = status }
}
