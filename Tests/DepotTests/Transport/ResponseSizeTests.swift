import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct ResponseSizeTests {
    static let limit = 1024 * 1024
    static let offered = 512 * 1024 * 1024
    /// An eighth of what is offered. The huge answers go out in 16 KiB chunks 1 ms apart (at most
    /// 16 MiB/s, a fast network rather than loopback), so a client that read to the end would keep
    /// the server busy for half a minute, and one that stops gives the server a few seconds of
    /// slack (FoundationNetworking cannot pause libcurl; its cancellation arrives late under load).
    static let stoppedEarly = 64 * 1024 * 1024
    static func huge(contentLength: Bool) -> StubResponse {
        .stream(bytes: offered, chunkSize: 16 * 1024, contentLength: contentLength, interval: .milliseconds(1))
    }

    @Test("the default limit is 32 MiB")
    func defaultLimit() {
        #expect(SessionConfiguration().maximumResponseSize == 33_554_432)
    }

    @Test("a Content-Length over the limit fails with .responseTooLarge at once", arguments: Transport.available)
    func contentLengthOverLimit(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.route(.get, "/huge", response: Self.huge(contentLength: true))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(maximumResponseSize: Self.limit))
            // When
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "huge"))
            }
            // Then
            #expect(error?.code == .responseTooLarge)
            #expect(error?.status == 200)
            #expect(await eventuallyAsync { server.streams.first?.isFinished == true })
            let record = try #require(server.streams.first)
            #expect(record.bytesWritten < Self.stoppedEarly, "the server wrote \(record.bytesWritten) bytes")
        }
    }

    @Test(
        "a chunked answer past the limit fails with .responseTooLarge, is not retried, and the server stops early",
        arguments: Transport.available)
    func chunkedOverLimit(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.route(.get, "/huge", response: Self.huge(contentLength: false))
            let configuration = SessionConfiguration(
                retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1)),
                maximumResponseSize: Self.limit)
            let session = transport.session(url: server.url, configuration: configuration)
            // When
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "huge"))
            }
            // Then
            #expect(error?.code == .responseTooLarge)
            #expect(server.requests.count == 1, "a too large answer is never retried")
            #expect(await eventuallyAsync { server.streams.first?.isFinished == true })
            let record = try #require(server.streams.first)
            #expect(record.bytesWritten > Self.limit, "the client must have read past the limit to notice")
            #expect(record.bytesWritten < Self.stoppedEarly, "the server wrote \(record.bytesWritten) bytes")
        }
    }

    @Test(
        "an answer at or under the limit arrives whole, chunked or not", arguments: Transport.available, [false, true])
    func underLimit(transport: Transport, contentLength: Bool) async throws {
        try await withStubServer { server in
            server.route(
                .get, "/small", response: .stream(bytes: 700 * 1024, chunkSize: 16 * 1024, contentLength: contentLength)
            )
            server.route(.get, "/exact", response: .stream(bytes: Self.limit, contentLength: contentLength))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(maximumResponseSize: Self.limit))
            let small = try await session.send(NetworkRequest(method: .get, path: "small"))
            #expect(small.body.count == 700 * 1024)
            #expect(small.body.allSatisfy { $0 == UInt8(ascii: "x") })
            let exact = try await session.send(NetworkRequest(method: .get, path: "exact"))
            #expect(exact.body.count == Self.limit)
            // The server marks a stream complete when its last write completes, which may be
            // after the client has read the last byte (a TSan run saw it not yet marked).
            #expect(await eventuallyAsync { server.streams.allSatisfy { $0.isComplete } })
        }
    }
}
