import Foundation

extension CRUDNetworkingRepository {
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
                    entity: try JSONMapping.entity(Entity.self, from: json), json: json,
                    etag: response.header("etag"))
            }
        } catch {
            return Promise(error: error)
        }
        return current.then { server -> Promise<Output> in
            switch PreconditionRequired.decide(error, base: base, server: (server.json ?? .null, server.etag)) {
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
