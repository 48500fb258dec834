import Depot
import DepotTesting
import Foundation
import Logging
import Testing

@Suite struct MiddlewareTests {
    @Test("an interceptor adds a bearer token to every request", arguments: Transport.available)
    func bearer(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(interceptors: [HeaderInterceptor.bearer("s3cret")])
            )
            _ = try await MessageRepository(store: session).readAll().value
            #expect(server.requests.last?.header("authorization") == "Bearer s3cret")
        }
    }

    @Test("a 503 then a 200 succeeds with retries on; Retry-After is honoured", arguments: Transport.available)
    func retry503(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.status(503, headers: ["Retry-After": "0"]), times: 2)
            // Ignoring Retry-After would pause 10 minutes before the first retry; the timeout turns
            // that into a failure without a wall-clock assertion that a loaded machine could trip.
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(600), maximumDelay: .seconds(1_200))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            let message = try await MessageRepository(store: session).read("1").timeout(seconds: 300).value
            #expect(message.text == "a")
            #expect(server.requests.count == 3)
        }
    }

    @Test(
        "a Retry-After longer than what is left of the request's timeout is not waited for: the call ends at once",
        arguments: Transport.available)
    func retryAfterPastTheTimeout(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            // Given a gateway asking for 30 s and requests whose whole timeout is 2 s
            server.inject(.status(503, headers: ["Retry-After": "30"]), times: 3)
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .seconds(60))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(2), retryPolicy: policy))
            // When one is sent from a task, and a repository reads (a session without interceptors
            // sends it from the transport's callbacks: model checker seed 4103746095884921410)
            let sent = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "messages/1", timeout: .seconds(2)))
            }
            let read = await #expect(throws: DepotError.self) {
                try await MessageRepository(store: session).read("1").value
            }
            // Then each 503 comes back after one attempt, with why no retry was made (before: a 30 s
            // sleep, then a second attempt)
            for error in [sent, read] {
                #expect(error?.status == 503)
                #expect(error?.message.contains("no retry") == true)
            }
            #expect(server.requests.count == 2)
        }
    }

    @Test("a POST without an Idempotency-Key is not retried; with one it is", arguments: Transport.available)
    func postRetry(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            server.inject(.status(503))
            let error = await #expect(throws: DepotError.self) {
                try await session.request(.post, "messages", body: ["text": "x"]).value
            }
            #expect(error?.status == 503)
            #expect(server.requests.count == 1)
            server.inject(.status(503))
            let json = try await session.request(
                .post, "messages", headers: ["Idempotency-Key": "k1"], body: ["text": "y"]
            ).value
            #expect(json["text"] == "y")
            #expect(server.requests.count == 3)
        }
    }

    @Test(
        "a repository create carries one Idempotency-Key on every try, so it is retried and applied once",
        arguments: Transport.available)
    func createRetriedUnderOneKey(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            server.inject(.applyThenDropConnection)
            // When
            let created = try await MessageRepository(store: session).create(["text": "x"]).value
            // Then
            let posts = server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 2)
            let key = try #require(posts.first?.header("Idempotency-Key"))
            #expect(posts.map { $0.header("Idempotency-Key") } == [key, key])
            #expect(server.appliedCount(idempotencyKey: key) == 1 && server.replayedWrites == 1)
            #expect(server.objects(in: "messages").map { $0["id"] } == [.string(created.id)])
        }
    }

}

/// A swift-log handler that keeps every message with its metadata.
struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        capture.append("\(event.message) \(event.metadata ?? [:])")
    }
}
