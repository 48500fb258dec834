import Foundation
import HTTPTypes

/// An answer: status, header fields and body, and the request header fields it was asked with.
public struct NetworkResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields in the order the transport delivered them, repeated names kept (see the
    /// transport's documentation for what it can deliver).
    public var headers: HTTPFields
    /// The body (empty when there was none).
    public var body: Data
    /// The header fields of the request this is the answer to, as they went out: after the
    /// pipeline merged the session's headers and ran its interceptors (a refreshed
    /// `Authorization` included), with what the transport adds to an attempt when it adds any
    /// there. What an HTTP cache keys an answer by (`Vary`). Nil when no pipeline or transport
    /// said; not compared by `==`.
    public var sentHeaders: HTTPFields?

    /// Makes a response.
    public init(status: Int, headers: HTTPFields = HTTPFields(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Makes a response with headers given as a dictionary (sorted by name; names that cannot be
    /// field names are dropped).
    public init(status: Int, headers: [String: String], body: Data = Data()) {
        self.init(status: status, headers: HTTPFields(lenient: headers), body: body)
    }

    /// The first value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? { headers.firstValue(name) }

    /// Every value of header `name`, in order, matched without regard to case (two `Link` fields
    /// give two values).
    public func headerValues(_ name: String) -> [String] { headers.allValues(name) }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Whether two answers have the same status, header fields and body (what they were asked
    /// with is not compared).
    public static func == (lhs: NetworkResponse, rhs: NetworkResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body
    }

    /// Hashes the status, header fields and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headers)
        hasher.combine(body)
    }
}
