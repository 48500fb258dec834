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

    @Test("a POST without an Idempotency-Key is not retried; with one it is", arguments: Transport.available)
    func postRetry(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            server.inject(.status(503))
            let error = await #expect(throws: DepotError.self) {
                try await MessageRepository(store: session).create(["text": "x"]).value
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

    @Test("4xx other than 408/429 is never retried; the attempts stop at the maximum", arguments: Transport.available)
    func retryLimits(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            await #expect(throws: DepotError.self) { try await MessageRepository(store: session).read("missing").value }
            #expect(server.requests.count == 1)
            server.inject(.status(500), times: 5)
            await #expect(throws: DepotError.self) { try await MessageRepository(store: session).read("missing").value }
            #expect(server.requests.count == 3)
        }
    }

    @Test(
        "logs go through swift-log with Authorization and Cookie redacted; hooks see each attempt",
        arguments: Transport.available)
    func redactedLogging(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let capture = LogCapture()
            var logger = Logger(label: "test") { _ in CapturingHandler(capture: capture) }
            logger.logLevel = .debug
            let seen = LogCapture()
            let configuration = SessionConfiguration(
                headers: ["Authorization": "Bearer top-secret", "Cookie": "session=abc123"],
                logger: logger,
                onRequest: { request, url in seen.append("request \(request.method) \(url.path)") },
                onResponse: { _, result, _ in seen.append("response \((try? result.get().status) ?? -1)") }
            )
            _ = try await MessageRepository(store: transport.session(url: server.url, configuration: configuration))
                .readAll().value
            let text = capture.all.joined(separator: "\n")
            #expect(text.contains("GET"))
            #expect(text.contains("<redacted>"))
            #expect(!text.contains("top-secret") && !text.contains("abc123"))
            #expect(seen.all == ["request GET /messages", "response 200"])
            #expect(server.requests.last?.header("authorization") == "Bearer top-secret")
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
