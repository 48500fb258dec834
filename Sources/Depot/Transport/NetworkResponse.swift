import Foundation
import HTTPTypes

/// An answer: status, header fields and body.
public struct NetworkResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields in the order the transport delivered them, repeated names kept (see the
    /// transport's documentation for what it can deliver).
    public var headers: HTTPFields
    /// The body (empty when there was none).
    public var body: Data

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
}
