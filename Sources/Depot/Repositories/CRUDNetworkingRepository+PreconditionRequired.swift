import Foundation

extension CRUDNetworkingRepository {
    /// A write refused with `428 Precondition Required` (the server requires `If-Match` and none
    /// was sent): reads the entity as the server has it now (`GET /path/:id`) and, when that copy
    /// is `base` (the server's copy the app's change was made against) and comes with a strong
    /// `ETag`, sends the write once more under `If-Match`. Otherwise the change was made against
    /// another version: rejects with `.conflict` (status 428, the server's body kept), as a 412
    /// would.
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
                    entity: try JSONMapping.entity(Entity.self, from: json), json: json,
                    etag: response.header("etag"))
            }
        } catch {
            return Promise(error: error)
        }
        return current.then { server -> Promise<Output> in
            guard let base, server.json == base, let etag = server.etag, ETag.isStrong(etag) else {
                throw Self.preconditionConflict(error, changed: base != nil && server.json != base)
            }
            var headers = extra
            headers["If-Match"] = etag
            let request = try operationRequest(operation, id: id, headers: headers, body: body)
            return store.exchange(request, read: read)
        }
    }

    /// The `.conflict` a 428 becomes when the write cannot go again as it is.
    static func preconditionConflict(_ error: DepotError, changed: Bool) -> DepotError {
        var conflict = error
        conflict.code = .conflict
        conflict.message =
            changed
            ? "the server requires If-Match (428) and its copy changed since the app's change was made"
            : "the server requires If-Match (428) and the version the app's change was made against is not known"
        return conflict
    }
}
