import Foundation

extension Networking {
    /// Sends `request`, telling `count` what crossed the wire in body bytes: the request once
    /// (`sent`), then the answer (`received`, an error answer's body included). Actions' metered
    /// sessions and the outbox's per-entry meter both count this way.
    func sendCounting(
        _ request: NetworkRequest, _ count: (_ requests: Int, _ sent: Int, _ received: Int) -> Void
    ) async throws -> NetworkResponse {
        count(1, request.body?.count ?? 0, 0)
        do {
            let response = try await send(request)
            count(0, 0, response.body.count)
            return response
        } catch let error as DepotError {
            count(0, 0, error.responseBody?.count ?? 0)
            throw error
        }
    }
}
