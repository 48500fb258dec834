import Foundation

/// The one error type Depot throws: a typed `code`, a message, and — when the failure came from a
/// request — the request, the HTTP status, the response headers and body, and the underlying error.
///
/// ```swift
/// do { _ = try await messages.read("42").value }
/// catch let error as DepotError where error.code == .notFound { print(error.status as Any) }
/// ```
///
/// `description` is short and never contains the response body, so it is safe to log.
public struct DepotError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as an extensible set of static members (compare with `==`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `"notFound"`.
        public let name: String

        /// Makes a code; libraries built on Depot may add their own.
        public init(_ name: String) { self.name = name }

        /// The code's name.
        public var description: String { name }

        /// The server answered 404 Not Found, or a local lookup found nothing.
        public static let notFound = Code("notFound")
        /// The server answered 409 Conflict or 412 Precondition Failed.
        public static let conflict = Code("conflict")
        /// The server answered with another non-2xx status; see ``DepotError/status``.
        public static let status = Code("status")
        /// The request never got an answer: refused connection, reset, DNS, TLS, dropped mid-way.
        public static let transport = Code("transport")
        /// No answer (or no settlement) within the time allowed.
        public static let timeout = Code("timeout")
        /// The work was cancelled (``Promise/cancel()`` or the awaiting task was cancelled).
        public static let cancelled = Code("cancelled")
        /// A response or stored value could not be read: malformed JSON, wrong types, missing keys.
        public static let decoding = Code("decoding")
        /// A value could not be turned into JSON.
        public static let encoding = Code("encoding")
        /// The local store failed: unreadable, unwritable or corrupt database, failed migration.
        public static let storage = Code("storage")
        /// The request could not be built: bad URL, header with CR/LF, id that is not a path component.
        public static let invalidRequest = Code("invalidRequest")
        /// A promise's resolver was released without settling the promise.
        public static let abandoned = Code("abandoned")
        /// The answer's body was larger than the session allows (its `maximumResponseSize`); the
        /// transport stopped reading and cancelled the request. Never retried.
        public static let responseTooLarge = Code("responseTooLarge")
        /// Erasing a store would lose writes the server has not accepted (outbox entries pending
        /// or rejected, records not synced); the message says how many, and nothing was erased.
        public static let unsyncedWrites = Code("unsyncedWrites")
        /// A stored record could not be migrated to the app's schema version: a migration threw,
        /// or the declared migrations are out of order. The store is left as it was.
        public static let migration = Code("migration")
        /// The server applied a create (a 2xx answer) but named no id for it: no `"id"` in the
        /// answer, no `Location`. The write is not sent again (it was applied), and the entity is
        /// not taken as synced under the id the client made.
        public static let serverIDUnknown = Code("serverIDUnknown")
        /// A list's answer says it holds more than the page it gave (a total above what was read)
        /// but names no way to the next page that `Pagination.automatic` knows: set the
        /// repository's pagination. Never a first page taken for the whole list.
        public static let listNotPaged = Code("listNotPaged")
    }

    /// The request a failure belongs to: its method and full URL.
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        /// The HTTP method, e.g. `"GET"`.
        public var method: String
        /// The full URL, query included.
        public var url: String

        /// Makes a request summary.
        public init(method: String, url: String) {
            self.method = method
            self.url = url
        }

        /// `"GET http://host/path"`.
        public var description: String { "\(method) \(url)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The request that failed, when the failure came from one.
    public var request: Request?
    /// The HTTP status of the answer, when there was one.
    public var status: Int?
    /// The response header fields in the order they arrived, repeated names kept, when there was
    /// an answer. Look one up with `responseHeaders["retry-after"]` (first value, any case).
    public var responseHeaders: Headers
    /// The response body, when there was an answer with a body.
    public var responseBody: Data?
    /// The error underneath (a URLError, a DecodingError, an SQLite error…), when there was one.
    public var underlying: (any Error)?

    /// Makes an error.
    public init(
        _ code: Code,
        _ message: String,
        request: Request? = nil,
        status: Int? = nil,
        responseHeaders: Headers = Headers(),
        responseBody: Data? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.request = request
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.underlying = underlying
    }

    /// The response body decoded as UTF-8, when there is one.
    public var responseText: String? {
        responseBody.flatMap { String(data: $0, encoding: .utf8) }
    }

    /// A one-line summary for logs: code, request, status and message; never the body.
    public var description: String {
        var parts = ["DepotError.\(code.name)"]
        if let request { parts.append(request.description) }
        if let status { parts.append("→ \(status)") }
        return parts.joined(separator: " ") + ": " + message
    }

    /// True for ``Code/cancelled``.
    public var isCancellation: Bool { code == .cancelled }

    /// The error a cancelled promise is rejected with.
    public static let cancelled = DepotError(.cancelled, "the work was cancelled")
}

extension DepotError {
    /// One header field: a name (case as received) and a value.
    public struct Header: Sendable, Hashable, CustomStringConvertible {
        /// The field name, e.g. `"Set-Cookie"`.
        public var name: String
        /// The field value.
        public var value: String

        /// Makes a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// `"name: value"`.
        public var description: String { "\(name): \(value)" }
    }

    /// Header fields in order, repeated names kept (two `Link` or `Set-Cookie` fields stay two),
    /// looked up by name without regard to case. Free of any HTTP library, so DepotPromise needs
    /// nothing but Foundation.
    ///
    /// ```swift
    /// let retryAfter = error.responseHeaders["Retry-After"]    // first value
    /// let cookies = error.responseHeaders.values(for: "set-cookie") // every value, in order
    /// ```
    public struct Headers: RandomAccessCollection, ExpressibleByDictionaryLiteral, Sendable, Hashable {
        /// The fields, in order.
        public var fields: [Header]

        /// Makes a list of fields.
        public init(_ fields: [Header] = []) { self.fields = fields }

        /// Makes a list from a dictionary (one field per name, sorted by name).
        public init(_ dictionary: [String: String]) {
            fields = dictionary.sorted { $0.key < $1.key }.map { Header(name: $0.key, value: $0.value) }
        }

        /// Makes a list from a literal, in the literal's order.
        public init(dictionaryLiteral elements: (String, String)...) {
            fields = elements.map { Header(name: $0.0, value: $0.1) }
        }

        /// The first value of field `name`, matched without regard to case.
        public subscript(name: String) -> String? {
            fields.first { $0.name.caseInsensitiveEquals(name) }?.value
        }

        /// Every value of field `name` in order, matched without regard to case.
        public func values(for name: String) -> [String] {
            fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
        }

        /// Adds a field at the end.
        public mutating func append(name: String, value: String) {
            fields.append(Header(name: name, value: value))
        }

        /// The position of the first field.
        public var startIndex: Int { fields.startIndex }
        /// The position past the last field.
        public var endIndex: Int { fields.endIndex }
        /// The field at `position`.
        public subscript(position: Int) -> Header { fields[position] }
    }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}

extension Error {
    /// True when the error means "cancelled": a ``DepotError`` with code ``DepotError/Code/cancelled``
    /// or Swift's `CancellationError`.
    public var isDepotCancellation: Bool {
        if let error = self as? DepotError { return error.code == .cancelled }
        return self is CancellationError
    }
}
