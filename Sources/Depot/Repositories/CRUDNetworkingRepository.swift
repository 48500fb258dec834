import Foundation

/// A remote REST collection with create, read, readAll, update and delete derived from `path`.
///
/// ```swift
/// struct MessageRepository: CRUDNetworkingRepository {
///     typealias Entity = Message
///     let store: Networking
///     let path = "messages"
/// }
/// let message = try await MessageRepository(store: session).read("42").value
/// ```
public protocol CRUDNetworkingRepository: NetworkingRepository {}

extension CRUDNetworkingRepository {
    /// `POST /path` with the entity; returns the entity the server answered with.
    public func create(_ entity: Entity) -> Promise<Entity> {
        do {
            return createAnswer(body: try encoded(entity)) { $0.entity }
        } catch {
            return Promise(error: error)
        }
    }

    /// `POST /path` with a JSON object (no id needed); returns the entity the server made.
    ///
    /// ```swift
    /// messages.create(["text": "Here goes a message"]).done { print($0.id) }
    /// ```
    public func create(_ dictionary: JSONObject) -> Promise<Entity> {
        createAnswer(body: applyingNilEncoding(dictionary)) { $0.entity }
    }

    /// `GET /path/:id`.
    ///
    /// - Returns: the entity; rejects with `DepotError/Code/notFound` for a 404.
    public func read(_ id: Entity.ID) -> Promise<Entity> {
        readAnswer(id: id.pathComponent) { $0.entity }
    }

    /// `GET /path?key=value…`: the entities matching `query` (encoded into the URL, sorted by key).
    public func readAll(query: [String: String] = [:]) -> Promise<[Entity]> {
        readAll(queryItems: query.sortedQueryItems)
    }

    /// `GET /path?…` with query items in the given order (repeated names allowed).
    public func readAll(queryItems: [URLQueryItem]) -> Promise<[Entity]> {
        readAllAnswers(queryItems: queryItems) { $0.map(\.entity) }
    }

    /// `PUT /path/:id` with the whole entity; returns the server's entity, or the one sent when the
    /// answer has no body (204).
    ///
    /// With a strong `ETag` remembered for the entity (see ``NetworkingRepository/snapshotCache``)
    /// and ``RepositoryConfiguration/conditionalWrites`` on, `If-Match` is sent; a 412 rejects with
    /// `DepotError/Code/conflict`, the server's body kept.
    public func update(_ entity: Entity) -> Promise<Entity> {
        let id = entity.id.pathComponent
        let snapshot = snapshotCache?.snapshot(for: id)
        return updateAnswer(entity, ifMatch: ifMatch(snapshot?.etag), base: snapshot?.json) { $0.entity }
    }

    /// `DELETE /path/:id` for the entity; 200, 202 and 204 with or without a body succeed.
    public func delete(_ entity: Entity) -> Promise<Void> {
        delete(id: entity.id)
    }

    /// `DELETE /path/:id`; sends `If-Match` like ``update(_:)`` and forgets the entity's snapshot.
    public func delete(id: Entity.ID) -> Promise<Void> {
        let key = id.pathComponent
        let snapshot = snapshotCache?.snapshot(for: key)
        return deleteAnswer(id: key, ifMatch: ifMatch(snapshot?.etag), base: snapshot?.json)
    }

    /// The entity as the JSON object sent on POST and PUT, nil attributes handled per
    /// ``RepositoryConfiguration/nilEncoding``.
    public func encoded(_ entity: Entity) throws -> JSONObject {
        try encoded(entity, object: try JSONMapping.object(entity, coding: configuration.coding))
    }

    /// ``encoded(_:)`` from the entity's `object` already made (`JSONMapping.object(entity)`): a
    /// local write stores that object and sends this body, and encodes the entity once.
    func encoded(_ entity: Entity, object: JSONObject) throws -> JSONObject {
        var object = object
        // Hand-mapped entities write their own nulls; Codable ones are asked which keys they write
        // as nil, through their own `encode(to:)` (so `CodingKeys` are honoured).
        if configuration.nilEncoding == .null, !(entity is any DictionaryRepresentable),
            let encodable = entity as? any Encodable
        {
            for key in try JSONMapping.nilKeys(of: encodable, coding: configuration.coding) where object[key] == nil {
                object[key] = .null
            }
        }
        return applyingNilEncoding(object)
    }

    func applyingNilEncoding(_ object: JSONObject) -> JSONObject {
        configuration.nilEncoding == .omit ? object.filter { $0.value != .null } : object
    }

    /// `etag` when it may go out as `If-Match`: conditional writes are on and the tag is strong.
    func ifMatch(_ etag: String?) -> String? {
        guard configuration.conditionalWrites, let etag, ETag.isStrong(etag) else { return nil }
        return etag
    }

    /// Sends the request for `operation` and reads the answer with `read`; `headers` win over the
    /// configuration's (names compared without regard to case). `onFailure` sees every failure of
    /// the transport before the promise is rejected with it.
    ///
    /// An update, patch or delete sent without `If-Match` and answered `428 Precondition Required`
    /// goes through ``answeringPreconditionRequired(_:id:headers:body:base:error:read:)``: `base` is
    /// the server's copy the change was made against (nil: not known).
    func send<Output: Sendable>(
        _ operation: RepositoryOperation,
        id: String?,
        query: [URLQueryItem] = [],
        headers extra: [String: String] = [:],
        body: JSON?,
        base: JSON? = nil,
        onFailure: (@Sendable (any Error) -> Void)? = nil,
        read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        let request: NetworkRequest
        do {
            request = try operationRequest(operation, id: id, query: query, headers: extra, body: body)
        } catch {
            return Promise(error: error)
        }
        let first = store.exchange(request, read: read, onFailure: onFailure)
        guard [.update, .patch, .delete].contains(operation), let id, request.headers[.ifMatch] == nil else {
            return first
        }
        return first.recover { error in
            guard let failure = error as? DepotError, failure.status == 428 else { throw error }
            return answeringPreconditionRequired(
                operation, id: id, headers: extra, body: body, base: base, error: failure, read: read)
        }
    }

    /// The request for `operation`, as ``send(_:id:query:headers:body:onFailure:read:)`` sends it.
    func operationRequest(
        _ operation: RepositoryOperation, id: String?, query: [URLQueryItem] = [],
        headers extra: [String: String] = [:],
        body: JSON? = nil
    ) throws -> NetworkRequest {
        let configuration = self.configuration
        let route = route(for: operation, configuration: configuration)
        var headers = configuration.requestHeaders
        if !extra.isEmpty {
            let names = Set(extra.keys.map { $0.lowercased() })
            headers = headers.filter { !names.contains($0.key.lowercased()) }.merging(extra) { _, new in new }
        }
        return try makeRequest(
            route.method, try route.checkedPath(id: id), template: route.path, query: query, headers: headers,
            body: body)
    }
}
