import Depot
import Foundation

/// A body the stub server generates and streams chunk by chunk (see ``StubResponse/stream(bytes:chunkSize:contentLength:interval:status:headers:)``).
public struct StubStreamedBody: Sendable, Hashable {
    /// How many bytes the body has in all.
    public var bytes: Int
    /// How many bytes go out in each chunk.
    public var chunkSize: Int
    /// True to announce the length with `Content-Length`; false for `Transfer-Encoding: chunked`.
    public var sendsContentLength: Bool
    /// A pause after each chunk, to stand in for a network slower than loopback; nil for none.
    public var interval: Duration?

    /// Makes a streamed body.
    public init(bytes: Int, chunkSize: Int, sendsContentLength: Bool, interval: Duration? = nil) {
        self.bytes = bytes
        self.chunkSize = chunkSize
        self.sendsContentLength = sendsContentLength
        self.interval = interval
    }
}

/// What the stub server wrote for one streamed body.
public struct StubStreamRecord: Sendable, Hashable {
    /// The path of the request answered.
    public var path: String
    /// The bytes the body had to offer.
    public var bytesOffered: Int
    /// The body bytes handed to the socket so far (the kernel may still have buffered some of them
    /// when the client went away).
    public var bytesWritten: Int
    /// True once the server stopped writing: the whole body went out or the connection closed.
    public var isFinished: Bool

    /// True when every offered byte was written.
    public var isComplete: Bool { bytesWritten == bytesOffered }
}

extension HTTPFields {
    /// Fields from a dictionary, sorted by name; names that cannot be fields are dropped.
    init(stub dictionary: [String: String]) {
        self.init()
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { append(HTTPField(name: fieldName, value: value)) }
        }
    }
}
