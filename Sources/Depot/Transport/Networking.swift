import Foundation

/// Sends requests: what a repository's `store` is. ``NetworkingSession`` (URLSession) is the default;
/// `DepotAsyncHTTPClient` adds a faster one for servers.
public protocol Networking: Sendable {
    /// Sends `request` and returns the answer. Non-2xx answers throw.
    ///
    /// - Throws: `DepotError`: `.notFound` (404), `.conflict` (409/412), `.status` (other
    ///   non-2xx, with status, headers and body), `.transport`, `.timeout`, `.cancelled`,
    ///   `.invalidRequest`.
    func send(_ request: NetworkRequest) async throws -> NetworkResponse
}

/// The error for a non-2xx answer: `.notFound` for 404, `.conflict` for 409 and 412, `.status`
/// for the rest, keeping status, headers and body.
public func statusError(for response: NetworkResponse, request: DepotError.Request?) -> DepotError {
    let code: DepotError.Code =
        switch response.status {
        case 404: .notFound
        case 409, 412: .conflict
        default: .status
        }
    return DepotError(
        code,
        "the server answered \(response.status)",
        request: request,
        status: response.status,
        responseHeaders: DepotError.Headers(response.headers),
        responseBody: response.body.isEmpty ? nil : response.body
    )
}
