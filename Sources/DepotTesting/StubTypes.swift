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
    /// The header fields in the order received, repeated names kept, names as sent.
    public var headers: HTTPFields
    /// The body (empty when there was none).
    public var body: Data
    /// The query exactly as sent, still percent-encoded (`search=a+b&page=2`), or nil without one.
    public var rawQuery: String? = nil

    /// The query as a dictionary (the last value wins for repeated names).
    public var query: [String: String] {
        Dictionary(queryItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// The body parsed as JSON, or nil when empty or malformed.
    public var json: JSON? { body.isEmpty ? nil : try? JSON(parsing: body) }

    /// The first value of header `name`, matched without regard to case.
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[values: $0].first }
    }

    /// Every value of header `name`, in order, matched without regard to case.
    public func headerValues(_ name: String) -> [String] {
        HTTPField.Name(name).map { headers[values: $0] } ?? []
    }
}

/// What the stub server answers.
public struct StubResponse: Sendable {
    /// The status.
    public var status: Int
    /// The header fields, sent in order, repeated names kept (two `Link` fields go out as two).
    public var headers: HTTPFields
    /// The body (ignored when ``streamedBody`` is set).
    public var body: Data
    /// A body generated and sent chunk by chunk instead of ``body``, never held in memory.
    public var streamedBody: StubStreamedBody?
    /// How long to wait before answering.
    public var delay: Duration?
    /// The `Idempotency-Key` held as being processed until this answer goes out (see
    /// ``StubServer/setConflictsWhileProcessing(_:for:)``).
    var processingKey: String?
    /// The gate the answer waits for (``StubFault/hold(_:)``).
    var heldBy: StubGate?

    /// Makes a response.
    public init(status: Int = 200, headers: HTTPFields = HTTPFields(), body: Data = Data(), delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// Makes a response with headers given as a dictionary (sent sorted by name).
    public init(status: Int = 200, headers: [String: String], body: Data = Data(), delay: Duration? = nil) {
        self.init(status: status, headers: HTTPFields(stub: headers), body: body, delay: delay)
    }

    /// A JSON answer with `Content-Type: application/json`.
    public static func json(_ json: JSON, status: Int = 200, headers: HTTPFields = HTTPFields(), delay: Duration? = nil)
        -> StubResponse
    {
        var headers = headers
        headers[.contentType] = "application/json"
        return StubResponse(status: status, headers: headers, body: (try? json.serialized()) ?? Data(), delay: delay)
    }

    /// A JSON answer with `Content-Type: application/json` and headers given as a dictionary.
    public static func json(_ json: JSON, status: Int = 200, headers: [String: String], delay: Duration? = nil)
        -> StubResponse
    {
        .json(json, status: status, headers: HTTPFields(stub: headers), delay: delay)
    }

    /// This answer, held until `gate` opens: the request is handled now, only its answer waits,
    /// so a test decides when the client hears it, however slow the machine.
    ///
    /// ```swift
    /// let gate = StubGate()
    /// server.route(.get, "/messages") { _, _ in .json([]).held(until: gate) }
    /// ```
    public func held(until gate: StubGate) -> StubResponse {
        var response = self
        response.heldBy = gate
        return response
    }

    /// A text answer.
    public static func text(_ text: String, status: Int = 200, headers: HTTPFields = HTTPFields()) -> StubResponse {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return StubResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    /// A text answer with headers given as a dictionary.
    public static func text(_ text: String, status: Int = 200, headers: [String: String]) -> StubResponse {
        .text(text, status: status, headers: HTTPFields(stub: headers))
    }

    /// An answer with no body.
    public static func empty(status: Int = 204, headers: HTTPFields = HTTPFields()) -> StubResponse {
        StubResponse(status: status, headers: headers)
    }

    /// An answer with no body and headers given as a dictionary.
    public static func empty(status: Int = 204, headers: [String: String]) -> StubResponse {
        StubResponse(status: status, headers: headers)
    }

    /// An answer whose body of `bytes` bytes is generated and written `chunkSize` bytes at a time,
    /// each chunk only once the previous one reached the socket, so a huge body costs no memory and
    /// the server stops as soon as the client goes away. Without `contentLength` the body goes out
    /// with `Transfer-Encoding: chunked` and no length. With an `interval`, the server pauses that
    /// long after each chunk (a network slower than loopback). ``StubServer/streams`` reports what
    /// was written.
    ///
    /// ```swift
    /// server.route(.get, "/huge", response: .stream(bytes: 512 << 20, chunkSize: 64 << 10))
    /// ```
    public static func stream(
        bytes: Int,
        chunkSize: Int = 64 * 1024,
        contentLength: Bool = false,
        interval: Duration? = nil,
        status: Int = 200,
        headers: HTTPFields = HTTPFields()
    ) -> StubResponse {
        precondition(bytes >= 0 && chunkSize > 0, "bytes must not be negative and chunkSize must be positive")
        var response = StubResponse(status: status, headers: headers)
        response.streamedBody = StubStreamedBody(
            bytes: bytes, chunkSize: chunkSize, sendsContentLength: contentLength, interval: interval)
        return response
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
    /// Handle the request normally (a write is applied, recorded and remembered under its
    /// `Idempotency-Key`), then close the connection without answering: the client never hears.
    case applyThenDropConnection
    /// Send the status line and headers announcing a body, then close mid-body.
    case dieMidResponse
    /// Handle the request normally (a write is applied, recorded and remembered under its
    /// `Idempotency-Key`), then stop listening (as ``StubServer/goOffline()``) and close the
    /// connection without answering. A client that retries the request on a new connection, as
    /// URLSession does when a kept-alive connection closes before any answer, is refused: the
    /// write reached the server, yet the client reports that it could not connect.
    case applyThenGoOffline
    /// Handle the request normally (a write is applied, and its `Idempotency-Key` is held as in
    /// processing, as with ``delay(_:)``), then hold the answer until the test opens `gate`.
    case hold(StubGate)
}
