import Foundation
import HTTPTypes

/// A request relative to a session's base URL: method, path, query, headers, body.
public struct NetworkRequest: Sendable, Hashable {
    /// The method.
    public var method: NetworkRequest.Method
    /// The path below the session's base URL (e.g. `"messages/42"`); characters a path cannot hold
    /// are percent-encoded when the URL is made, valid `%XX` escapes are kept.
    public var path: String
    /// Query items, in order; encoded into the URL. Setting them drops a query kept as a server
    /// wrote it (a next-page link's).
    public var query: [URLQueryItem] { didSet { serverQuery = nil } }
    /// The query exactly as a server wrote it in a link (percent-encoded, `+` and all), sent as it
    /// is instead of encoding ``query`` again: decoding and re-encoding `a+b` would ask `a%2Bb`.
    var serverQuery: String?
    /// Header fields for this request only, in order, repeated names kept; they never leak into
    /// the session.
    public var headers: HTTPFields
    /// The body, if any.
    public var body: Data?
    /// How long to wait for the whole answer (a total, not an idle, timeout); the session's default
    /// when nil. A retry's pause never lasts longer: a `Retry-After` or backoff beyond it is not
    /// waited for, and the call ends with the last attempt's failure.
    public var timeout: Duration?
    /// The longest wait a caller allows whatever the session's timeout (a forwarder's
    /// ``ForwarderConfiguration/requestTimeout``): it shortens a longer timeout, never lengthens one.
    var timeoutCap: Duration?
    /// The route template the path was made from (`messages/:id`), for metrics and trace spans,
    /// which must not carry raw ids; nil for a path given as it is. Not sent.
    public var template: String?
    /// The ``AuthenticationInterceptor``s whose refresh made this request (see
    /// ``AuthenticationInterceptor/marking(_:)``): they neither adapt nor retry it. A fact on the
    /// request, so it holds on every road, across any queue or task hop. Not sent.
    var refreshMarks: Set<ObjectIdentifier> = []
    /// The account the request must go under (the account its outbox entry was recorded under,
    /// ``OutboxEntry/account``); nil for any. An ``AuthenticationInterceptor`` whose credential is
    /// another account's refuses it with `DepotError` `.otherAccount`. Not sent.
    public var account: String?
    /// Names of fields given as strings that were refused (CR, LF or NUL, or not a field name);
    /// ``validateHeaders()`` throws for them before anything is sent.
    var rejectedHeaders: [String] = []

    /// Makes a request.
    public init(
        method: NetworkRequest.Method,
        path: String,
        query: [URLQueryItem] = [],
        headers: HTTPFields = HTTPFields(),
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

    /// Makes a request with headers given as a dictionary (one field per name).
    ///
    /// A name or value holding CR, LF or NUL, or a name that is not an HTTP token, is not added:
    /// sending the request throws `DepotError` `.invalidRequest` instead.
    public init(
        method: NetworkRequest.Method,
        path: String,
        query: [URLQueryItem] = [],
        headers: [String: String],
        body: Data? = nil,
        timeout: Duration? = nil
    ) {
        let (fields, rejected) = HTTPFields.checking(headers)
        self.init(method: method, path: path, query: query, headers: fields, body: body, timeout: timeout)
        rejectedHeaders = rejected
    }

    /// Makes a request with a JSON body (and `Content-Type: application/json` unless `headers`
    /// name a content type).
    public init(
        method: NetworkRequest.Method,
        path: String,
        query: [URLQueryItem] = [],
        headers: HTTPFields = HTTPFields(),
        json: JSON
    ) throws {
        var headers = headers
        if headers[.contentType] == nil { headers.append(HTTPField(name: .contentType, value: "application/json")) }
        self.init(method: method, path: path, query: query, headers: headers, body: try json.serialized())
    }

    /// Makes a request with a JSON body and headers given as a dictionary; a refused field makes
    /// sending throw `.invalidRequest`, as with the dictionary `init(method:path:query:headers:body:timeout:)`.
    public init(
        method: NetworkRequest.Method, path: String, query: [URLQueryItem] = [], headers: [String: String], json: JSON
    ) throws {
        let (fields, rejected) = HTTPFields.checking(headers)
        try self.init(method: method, path: path, query: query, headers: fields, json: json)
        rejectedHeaders = rejected
    }

    /// The first value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? { headers.firstValue(name) }

    /// Every value of header `name`, in order, matched without regard to case.
    public func headerValues(_ name: String) -> [String] { headers.allValues(name) }

    /// The full URL below `base`.
    ///
    /// Characters a path cannot hold as they are (space, `%` not followed by two hex digits, `?`,
    /// `#`, non-ASCII, control characters…) are percent-encoded; `/` stays the separator and valid
    /// `%XX` escapes are kept, so an already encoded path is unchanged. Query names and values are
    /// percent-encoded whole.
    ///
    /// - Throws: `DepotError` `.invalidRequest` when no URL can be made.
    public func url(relativeTo base: URL) throws -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: true) ?? URLComponents()
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }
        let relative = Self.encodePath(path.hasPrefix("/") ? String(path.dropFirst()) : path)
        components.percentEncodedPath = relative.isEmpty ? basePath : basePath + "/" + relative
        if let serverQuery {
            components.percentEncodedQuery = nil
            guard let url = components.url, let withQuery = URL(string: url.absoluteString + "?" + serverQuery) else {
                throw DepotError(.invalidRequest, "cannot make a URL from \(base), \(path) and its link's query")
            }
            return withQuery
        }
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

    /// `path` with every byte a path does not keep as it is percent-encoded, except `/` and valid
    /// `%XX` escapes (see ``BaseURLParts/isPlain(_:query:)``); a plain path comes back unchanged.
    static func encodePath(_ path: String) -> String {
        if BaseURLParts.isPlain(path, query: false) { return path }
        let bytes = Array(path.utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let escape =
                byte == UInt8(ascii: "%") && index + 2 < bytes.count
                && BaseURLParts.isHex(bytes[index + 1]) && BaseURLParts.isHex(bytes[index + 2])
            if escape || (byte != UInt8(ascii: "%") && BaseURLParts.isPlain(byte, query: false)) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
            index += 1
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;?#")
        return allowed
    }()

    /// `text` percent-encoded for a query item's name or value.
    static func encodeQuery(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }

    /// Refuses a header name or value that contains CR, LF or NUL (header injection), an empty
    /// name or one that is not an HTTP token.
    ///
    /// Fields set through `HTTPFields` cannot carry such bytes (it turns them into spaces); fields
    /// given as a `[String: String]` are checked when converted and refused here.
    ///
    /// - Throws: `DepotError` `.invalidRequest` before anything is sent.
    public func validateHeaders() throws {
        if let name = rejectedHeaders.first ?? headers.first(where: { HTTPFields.isInjection($0.value) })?.name.rawName
        {
            throw DepotError(
                .invalidRequest, "header \(name.debugDescription) contains CR, LF or NUL, or is not a valid name")
        }
    }
}

extension NetworkRequest {
    /// The wait for this request: its own ``timeout`` or `sessionTimeout`, capped by ``timeoutCap``.
    func effectiveTimeout(session sessionTimeout: Duration) -> Duration {
        let timeout = self.timeout ?? sessionTimeout
        guard let timeoutCap else { return timeout }
        return min(timeout, timeoutCap)
    }
}
