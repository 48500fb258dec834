import Foundation

extension CRUDNetworkingRepository {
    /// The `If-Match` a direct update, PATCH or delete of entity `id` goes under, from the write
    /// `ETag` its record keeps (``ifMatch(_:)``). For ``ETag/unknownVersion`` (a write's answer left
    /// the record's version unknown), the server's copy is read first (`GET /path/:id`) and
    /// ``PreconditionRequired/decideUnknownVersion(base:server:)`` decides against `base`, the
    /// server's copy the change was made against: its `ETag`, or a `.conflict` thrown.
    func ifMatch(_ etag: String?, id: String, base: JSON?) async throws -> String? {
        guard etag == ETag.unknownVersion, configuration.conditionalWrites else { return ifMatch(etag) }
        let envelope = configuration.envelope
        let server: ServerVersion?
        do {
            server = try await store.exchange(try operationRequest(.read, id: id)) { response in
                ServerVersion(
                    json: try JSONMapping.unwrap(JSON(parsing: response.body), envelope: envelope),
                    etag: response.header("etag"))
            }.value
        } catch let error as DepotError where error.code == .notFound {
            server = nil
        }
        return try PreconditionRequired.decideUnknownVersion(
            base: base, server: server.map { ($0.json, $0.etag) },
            fields: WrittenFields(configuration, entity: Entity.self)
        ).get()
    }

    /// A write refused with `428 Precondition Required` (the server requires `If-Match` and none
    /// was sent), on the road of a repository without a store: reads the entity as the server has
    /// it now (`GET /path/:id`), and ``PreconditionRequired/decide(_:base:server:mayResend:)``
    /// says whether the write goes once more under `If-Match` or rejects with `.conflict`.
    func answeringPreconditionRequired<Output: Sendable>(
        _ operation: RepositoryOperation, id: String, headers extra: [String: String], body: JSON?, base: JSON?,
        error: DepotError, read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        let configuration = self.configuration
        let current: Promise<RemoteAnswer<Entity>>
        do {
            let request = try operationRequest(.read, id: id)
            current = store.exchange(request) { response in
                let json = try JSONMapping.unwrap(JSON(parsing: response.body), envelope: configuration.envelope)
                return RemoteAnswer(
                    entity: try JSONMapping.entity(Entity.self, from: json, coding: configuration.coding), json: json,
                    etag: response.header("etag"))
            }
        } catch {
            return Promise(error: error)
        }
        return current.then { server -> Promise<Output> in
            switch PreconditionRequired.decide(
                error, base: base, server: (server.json ?? .null, server.etag),
                fields: WrittenFields(configuration, entity: Entity.self))
            {
            case .conflict(let conflict):
                throw conflict
            case .sendAgain(let etag):
                var headers = extra
                headers["If-Match"] = etag
                let request = try operationRequest(operation, id: id, headers: headers, body: body)
                return store.exchange(request, read: read)
            }
        }
    }
}

/// The server's copy of an entity and its `ETag`, as a read before a write found it.
struct ServerVersion: Sendable {
    var json: JSON
    var etag: String?
}
