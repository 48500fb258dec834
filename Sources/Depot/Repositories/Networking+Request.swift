import Foundation
import HTTPTypes

extension Networking {
    /// Sends a raw request and reads the answer as JSON (`null` for an empty body).
    ///
    /// ```swift
    /// let stats = try await session.request(.get, "stats", query: ["day": "today"]).value
    /// ```
    public func request(
        _ method: NetworkRequest.Method,
        _ path: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: JSON? = nil
    ) -> Promise<JSON> {
        exchange(method, path, query: query, headers: headers, body: body) { response in
            response.body.isEmpty ? .null : try JSON(parsing: response.body)
        }
    }

    /// Sends a raw request and reads the answer as an entity (unwrapping `envelope` when given).
    public func request<Entity: Sendable>(
        _ method: NetworkRequest.Method,
        _ path: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: JSON? = nil,
        envelope: String? = nil,
        as type: Entity.Type
    ) -> Promise<Entity> {
        exchange(method, path, query: query, headers: headers, body: body) { response in
            try JSONMapping.entity(Entity.self, from: response.body, envelope: envelope)
        }
    }

    /// Sends a raw request and reads the answer as an array of entities.
    public func request<Entity: Sendable>(
        _ method: NetworkRequest.Method,
        _ path: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: JSON? = nil,
        envelope: String? = nil,
        as type: [Entity].Type
    ) -> Promise<[Entity]> {
        exchange(method, path, query: query, headers: headers, body: body) { response in
            try JSONMapping.entities(Entity.self, from: response.body, envelope: envelope)
        }
    }

    /// Sends a raw request and ignores the answer's body: success is any 2xx.
    public func request(
        _ method: NetworkRequest.Method,
        _ path: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: JSON? = nil,
        as type: Okay.Type
    ) -> Promise<Okay> {
        exchange(method, path, query: query, headers: headers, body: body) { Okay(status: $0.status) }
    }

    /// Sends `request` and reads the answer with `read`; a read failure becomes a `.decoding`
    /// `DepotError` that keeps the request, status and body.
    ///
    /// The request goes out through ``Networking/send(_:completion:)`` and `read` runs where the
    /// transport completes, so no task is started per call (unless the transport implements only
    /// ``Networking/send(_:)``). Cancelling the promise cancels the request.
    public func exchange<Output: Sendable>(
        _ request: NetworkRequest,
        read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        exchange(request, read: read, onFailure: nil)
    }

    /// ``exchange(_:read:)`` that also hands every failure (the transport's, not `read`'s) to
    /// `onFailure` before the promise is rejected with it.
    func exchange<Output: Sendable>(
        _ request: NetworkRequest,
        read: @escaping @Sendable (NetworkResponse) throws -> Output,
        onFailure: (@Sendable (any Error) -> Void)?
    ) -> Promise<Output> {
        let (promise, resolver) = Promise<Output>.pending()
        let (method, path) = (request.method, request.path)
        let call = send(request) { result in
            switch result {
            case .success(let response) where response.body.count > inlineReadLimit:
                // A large answer is decoded off the transport's thread (an event loop, say).
                PromiseDefaults.queue.async {
                    resolver.resolve(Self.reading(response, method: method, path: path, with: read))
                }
            case .success(let response):
                resolver.resolve(Self.reading(response, method: method, path: path, with: read))
            case .failure(let error):
                let error = error is CancellationError ? DepotError.cancelled : error
                onFailure?(error)
                resolver.reject(error)
            }
        }
        resolver.onCancel { call.cancel() }
        return promise
    }

    /// `read(response)`, a `DepotError` it throws completed with the answer's status, body,
    /// headers and (when it names none) the request.
    private static func reading<Output>(
        _ response: NetworkResponse, method: NetworkRequest.Method, path: String,
        with read: (NetworkResponse) throws -> Output
    ) -> Result<Output, any Error> {
        do {
            return .success(try read(response))
        } catch var error as DepotError {
            error.status = error.status ?? response.status
            error.responseBody = error.responseBody ?? response.body
            error.responseHeaders =
                error.responseHeaders.isEmpty ? DepotError.Headers(response.headers) : error.responseHeaders
            if error.request == nil {
                error.request = DepotError.Request(method: method.rawValue, url: path)
            }
            return .failure(error)
        } catch {
            return .failure(error)
        }
    }

    func exchange<Output: Sendable>(
        _ method: NetworkRequest.Method,
        _ path: String,
        query: [String: String],
        headers: [String: String],
        body: JSON?,
        read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        let request: NetworkRequest
        do {
            request = try makeRequest(method, path, query: query.sortedQueryItems, headers: headers, body: body)
        } catch {
            return Promise(error: error)
        }
        return exchange(request, read: read)
    }
}

/// The largest answer body (64 KiB) ``Networking/exchange(_:read:)`` reads on the thread the
/// transport completed on; a larger one is read on ``PromiseDefaults/queue``.
let inlineReadLimit = 64 * 1024

/// Builds a request with an optional JSON body and `Accept: application/json`.
func makeRequest(
    _ method: NetworkRequest.Method,
    _ path: String,
    template: String? = nil,
    query: [URLQueryItem] = [],
    headers: [String: String] = [:],
    body: JSON? = nil
) throws -> NetworkRequest {
    var request = try makeUntemplatedRequest(method, path, query: query, headers: headers, body: body)
    request.template = template
    return request
}

private func makeUntemplatedRequest(
    _ method: NetworkRequest.Method, _ path: String, query: [URLQueryItem], headers: [String: String], body: JSON?
) throws -> NetworkRequest {
    if headers.isEmpty {
        // The common case, without a dictionary: the same fields the dictionary path makes.
        if let body {
            return try NetworkRequest(method: method, path: path, query: query, headers: acceptJSON, json: body)
        }
        return NetworkRequest(method: method, path: path, query: query, headers: acceptJSON)
    }
    var headers = headers
    if headers.keys.first(where: { $0.lowercased() == "accept" }) == nil { headers["Accept"] = "application/json" }
    if let body {
        return try NetworkRequest(method: method, path: path, query: query, headers: headers, json: body)
    }
    return NetworkRequest(method: method, path: path, query: query, headers: headers)
}

/// `Accept: application/json`, made once.
private let acceptJSON: HTTPFields = [.accept: "application/json"]

extension Dictionary where Key == String, Value == String {
    /// The pairs as query items sorted by name, so URLs are stable.
    var sortedQueryItems: [URLQueryItem] {
        map { URLQueryItem(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
    }
}
