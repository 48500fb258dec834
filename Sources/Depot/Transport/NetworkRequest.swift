import Foundation

/// A request relative to a session's base URL: method, path, query, headers, body.
public struct NetworkRequest: Sendable, Hashable {
    /// The method.
    public var method: NetworkRequest.Method
    /// The path below the session's base URL, already percent-encoded (e.g. `"messages/42"`).
    public var path: String
    /// Query items, in order; encoded into the URL.
    public var query: [URLQueryItem]
    /// Headers for this request only; they never leak into the session.
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?
    /// How long to wait for the answer; the session's default when nil.
    public var timeout: Duration?

    /// Makes a request.
    public init(
        method: NetworkRequest.Method,
        path: String,
        query: [URLQueryItem] = [],
        headers: [String: String] = [:],
        body: Data? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Makes a request with a JSON body (and `Content-Type: application/json`).
    public init(method: NetworkRequest.Method, path: String, query: [URLQueryItem] = [], headers: [String: String] = [:], json: JSON) throws {
        var headers = headers
        if headers.keys.first(where: { $0.lowercased() == "content-type" }) == nil {
            headers["Content-Type"] = "application/json"
        }
        self.init(method: method, path: path, query: query, headers: headers, body: try json.serialized())
    }

    /// The value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }

    /// The full URL below `base`.
    ///
    /// - Throws: ``DepotError`` `.invalidRequest` when no URL can be made.
    public func url(relativeTo base: URL) throws -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: true) ?? URLComponents()
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        components.percentEncodedPath = relative.isEmpty ? basePath : basePath + "/" + relative
        if !query.isEmpty {
            components.percentEncodedQueryItems = query.map {
                URLQueryItem(name: Self.encodeQuery($0.name), value: $0.value.map(Self.encodeQuery))
            }
        }
        guard let url = components.url else {
            throw DepotError(.invalidRequest, "cannot make a URL from \(base) and \(path)")
        }
        return url
    }

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;?#")
        return allowed
    }()

    private static func encodeQuery(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }

    /// Refuses a header name or value that contains CR, LF or NUL (header injection).
    ///
    /// - Throws: ``DepotError`` `.invalidRequest` before anything is sent.
    public func validateHeaders() throws {
        for (name, value) in headers {
            let bad: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" || $0 == "\0" }
            if name.unicodeScalars.contains(where: bad) || value.unicodeScalars.contains(where: bad) || name.isEmpty {
                throw DepotError(.invalidRequest, "header \(name.debugDescription) contains CR, LF or NUL, or has no name")
            }
        }
    }
}

/// An answer: status, headers (names lowercased) and body.
public struct NetworkResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body (empty when there was none).
    public var body: Data

    /// Makes a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Percent-encodes an id as one path component: `/` can never split it, and `.` or `..` can never
/// climb out of the collection.
public func encodePathComponent(_ component: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/;?#%")
    let encoded = component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    if encoded.allSatisfy({ $0 == "." }) {
        return String(repeating: "%2E", count: encoded.count)
    }
    return encoded
}

extension NetworkRequest {
/// An HTTP method.
public struct Method: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method's name, e.g. `"GET"`.
    public let rawValue: String
    /// Makes a method from its name.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    /// Makes a method from its name.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The method's name.
    public var description: String { rawValue }

    /// GET.
    public static let get = Method(rawValue: "GET")
    /// POST.
    public static let post = Method(rawValue: "POST")
    /// PUT.
    public static let put = Method(rawValue: "PUT")
    /// PATCH.
    public static let patch = Method(rawValue: "PATCH")
    /// DELETE.
    public static let delete = Method(rawValue: "DELETE")
    /// HEAD.
    public static let head = Method(rawValue: "HEAD")
    /// OPTIONS.
    public static let options = Method(rawValue: "OPTIONS")

    /// True for methods that may be repeated without changing the result (RFC 9110 §9.2.2).
    public var isIdempotent: Bool { [.get, .head, .put, .delete, .options].contains(self) || rawValue == "TRACE" }
}
}
