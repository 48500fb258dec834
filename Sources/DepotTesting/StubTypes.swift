import Depot
import Foundation

/// A request as the stub server received it.
public struct RecordedRequest: Sendable, Hashable {
    /// The method, e.g. `"GET"`.
    public var method: String
    /// The path, percent-decoded, without the query (e.g. `"/messages/42"`).
    public var path: String
    /// The path exactly as sent, still percent-encoded.
    public var rawPath: String
    /// The query items, percent-decoded, in order.
    public var queryItems: [URLQueryItem]
    /// The headers, names lowercased (a repeated header's values joined with ", ").
    public var headers: [String: String]
    /// The body (empty when there was none).
    public var body: Data

    /// The query as a dictionary (the last value wins for repeated names).
    public var query: [String: String] {
        Dictionary(queryItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// The body parsed as JSON, or nil when empty or malformed.
    public var json: JSON? { body.isEmpty ? nil : try? JSON(parsing: body) }

    /// The value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the stub server answers.
public struct StubResponse: Sendable {
    /// The status.
    public var status: Int
    /// The headers.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// How long to wait before answering.
    public var delay: Duration?

    /// Makes a response.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data(), delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A JSON answer with `Content-Type: application/json`.
    public static func json(_ json: JSON, status: Int = 200, headers: [String: String] = [:], delay: Duration? = nil) -> StubResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return StubResponse(status: status, headers: headers, body: (try? json.serialized()) ?? Data(), delay: delay)
    }

    /// A text answer.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        var headers = headers
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return StubResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    /// An answer with no body.
    public static func empty(status: Int = 204, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(status: status, headers: headers)
    }
}

/// A failure the stub server injects in place of its normal answer.
public enum StubFault: Sendable, Hashable {
    /// Answer with this status and a JSON error body.
    case status(Int, headers: [String: String] = [:])
    /// Answer 200 with a body that is not JSON.
    case malformedJSON
    /// Wait this long, then answer normally.
    case delay(Duration)
    /// Close the connection without answering.
    case dropConnection
    /// Send the status line and headers announcing a body, then close mid-body.
    case dieMidResponse
}
