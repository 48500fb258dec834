import Foundation

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
    public func exchange<Output: Sendable>(
        _ request: NetworkRequest,
        read: @escaping @Sendable (NetworkResponse) throws -> Output
    ) -> Promise<Output> {
        Promise {
            let response = try await self.send(request)
            do {
                return try read(response)
            } catch var error as DepotError {
                error.status = error.status ?? response.status
                error.responseBody = error.responseBody ?? response.body
                error.responseHeaders =
                    error.responseHeaders.isEmpty ? DepotError.Headers(response.headers) : error.responseHeaders
                if error.request == nil {
                    error.request = DepotError.Request(method: request.method.rawValue, url: request.path)
                }
                throw error
            }
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

/// Builds a request with an optional JSON body and `Accept: application/json`.
func makeRequest(
    _ method: NetworkRequest.Method,
    _ path: String,
    query: [URLQueryItem] = [],
    headers: [String: String] = [:],
    body: JSON? = nil
) throws -> NetworkRequest {
    var headers = headers
    if headers.keys.first(where: { $0.lowercased() == "accept" }) == nil { headers["Accept"] = "application/json" }
    if let body {
        return try NetworkRequest(method: method, path: path, query: query, headers: headers, json: body)
    }
    return NetworkRequest(method: method, path: path, query: query, headers: headers)
}

extension Dictionary where Key == String, Value == String {
    /// The pairs as query items sorted by name, so URLs are stable.
    var sortedQueryItems: [URLQueryItem] {
        map { URLQueryItem(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
    }
}
