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
            return create(body: try encoded(entity))
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
        create(body: applyingNilEncoding(dictionary))
    }

    private func create(body: JSONObject) -> Promise<Entity> {
        send(.create, id: nil, body: .object(body)) { response in try decodeEntity(response) }
    }

    /// `GET /path/:id`.
    ///
    /// - Returns: the entity; rejects with `DepotError/Code/notFound` for a 404.
    public func read(_ id: Entity.ID) -> Promise<Entity> {
        send(.read, id: id.pathComponent, body: nil) { response in try decodeEntity(response) }
    }

    /// `GET /path?key=value…`: the entities matching `query` (encoded into the URL, sorted by key).
    public func readAll(query: [String: String] = [:]) -> Promise<[Entity]> {
        readAll(queryItems: query.sortedQueryItems)
    }

    /// `GET /path?…` with query items in the given order (repeated names allowed).
    public func readAll(queryItems: [URLQueryItem]) -> Promise<[Entity]> {
        send(.readAll, id: nil, query: queryItems, body: nil) { response in
            try JSONMapping.entities(Entity.self, from: response.body, envelope: configuration.collectionEnvelope)
        }
    }

    /// `PUT /path/:id` with the whole entity; returns the server's entity, or the one sent when the
    /// answer has no body (204).
    public func update(_ entity: Entity) -> Promise<Entity> {
        let body: JSONObject
        do {
            body = try encoded(entity)
        } catch {
            return Promise(error: error)
        }
        return send(.update, id: entity.id.pathComponent, body: .object(body)) { response in
            response.body.isEmpty ? entity : try decodeEntity(response)
        }
    }

    /// `DELETE /path/:id` for the entity; 200, 202 and 204 with or without a body succeed.
    @discardableResult
    public func delete(_ entity: Entity) -> Promise<Void> {
        delete(id: entity.id)
    }

    /// `DELETE /path/:id`.
    @discardableResult
    public func delete(id: Entity.ID) -> Promise<Void> {
        send(.delete, id: id.pathComponent, body: nil) { _ in () }
    }

    /// The entity as the JSON object sent on POST and PUT, nil attributes handled per
    /// ``RepositoryConfiguration/nilEncoding``.
    public func encoded(_ entity: Entity) throws -> JSONObject {
        var object = try JSONMapping.object(entity)
        if configuration.nilEncoding == .null {
            for key in NilAttributes.keys(of: entity) where object[key] == nil { object[key] = .null }
        }
        return applyingNilEncoding(object)
    }

    func applyingNilEncoding(_ object: JSONObject) -> JSONObject {
        configuration.nilEncoding == .omit ? object.filter { $0.value != .null } : object
    }

    func decodeEntity(_ response: NetworkResponse) throws -> Entity {
        try JSONMapping.entity(Entity.self, from: response.body, envelope: configuration.envelope)
    }

    /// Sends the request for `operation` and reads the answer with `read`.
    func send<Output: Sendable>(
        _ operation: RepositoryOperation,
        id: String?,
        query: [URLQueryItem] = [],
        body: JSON?,
        read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        let route = route(for: operation)
        let request: NetworkRequest
        do {
            request = try makeRequest(
                route.method, route.resolvedPath(id: id), query: query, headers: configuration.headers, body: body)
        } catch {
            return Promise(error: error)
        }
        return store.exchange(request, read: read)
    }
}

/// Finds the attributes of a value that are nil, by reflection: for `NilEncoding.null` on
/// `Codable` entities, whose encoders leave nil out. Assumes property names are the JSON keys;
/// entities with custom keys map themselves with ``DictionaryRepresentable``.
enum NilAttributes {
    static func keys(of value: Any) -> [String] {
        guard !(value is any DictionaryRepresentable) else { return [] }
        return Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label else { return nil }
            let mirror = Mirror(reflecting: child.value)
            guard mirror.displayStyle == .optional, mirror.children.isEmpty else { return nil }
            return label.hasPrefix("_") ? String(label.dropFirst()) : label
        }
    }
}
