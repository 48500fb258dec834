import Depot
import DepotTesting
import Foundation
import Testing

/// `Networking.send(_:completion:)`: the entry point repositories send through, completed by the
/// transport's own callbacks, with the default for types that implement only `send(_:)`.
@Suite struct CompletionSendTests {
    @Test("send(_:completion:) delivers a 2xx answer through the pipeline", arguments: Transport.available)
    func answer(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = transport.session(url: server.url, headers: ["X-App": "depot"])
            // When
            let (_, result) = await completion {
                session.send(NetworkRequest(method: .get, path: "messages/1"), completion: $0)
            }
            // Then
            let response = try result.get()
            #expect(response.status == 200)
            let json = try JSON(parsing: response.body)
            #expect(json["text"] == "a")
            #expect(server.requests.last?.header("x-app") == "depot")
        }
    }

    @Test("send(_:completion:) turns a 404 into a typed DepotError naming the request", arguments: Transport.available)
    func notFound(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let session = transport.session(url: server.url)
            let (_, result) = await completion {
                session.send(NetworkRequest(method: .get, path: "messages/9"), completion: $0)
            }
            let error = try #require(result.failure as? DepotError)
            #expect(error.code == .notFound)
            #expect(error.status == 404)
            #expect(error.request?.url == server.url.absoluteString + "/messages/9")
        }
    }

    @Test("cancelling the call cancels the request: the completion gets .cancelled", arguments: Transport.available)
    func cancel(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: an answer that would take 40 s (long enough that a cancel delayed by a loaded
            // machine still comes first; shorter than the session's 60 s timeout)
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.delay(.seconds(40)))
            let session = transport.session(url: server.url)
            // When
            let (stream, continuation) = AsyncStream.makeStream(of: Result<NetworkResponse, any Error>.self)
            let call = session.send(NetworkRequest(method: .get, path: "messages/1")) { continuation.yield($0) }
            #expect(await eventuallyAsync { server.requests.count == 1 })
            call.cancel()
            // Then: had the cancellation not reached the transport, the delayed 200 would arrive.
            let result = await stream.first { _ in true }
            #expect((result?.failure as? DepotError)?.code == .cancelled)
        }
    }

    @Test(
        "cancelling while a retry waits stops the retries: the completion gets .cancelled",
        arguments: Transport.available)
    func cancelWhileWaitingToRetry(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: every answer a 503 asking for a 10-minute pause (capped at 20 s)
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.status(503, headers: ["Retry-After": "600"]), times: 10)
            let policy = RetryPolicy(maximumAttempts: 3, maximumDelay: .seconds(20))
            // The client has the 503 once the response hook saw it (the server's count alone
            // says only that the request arrived; a cancel then may still meet the request).
            let answered = LockedValue(0)
            let configuration = SessionConfiguration(
                retryPolicy: policy, onResponse: { _, _, _ in answered.withLock { $0 += 1 } })
            let session = transport.session(url: server.url, configuration: configuration)
            // When
            let (stream, continuation) = AsyncStream.makeStream(of: Result<NetworkResponse, any Error>.self)
            let call = session.send(NetworkRequest(method: .get, path: "messages/1")) { continuation.yield($0) }
            #expect(await eventuallyAsync { answered.withLock { $0 } == 1 })
            call.cancel()
            // Then: uncancelled, the retries would end in a .status error after 40 s.
            let error = await stream.first { _ in true }?.failure as? DepotError
            #expect(error?.code == .cancelled)
            #expect(error?.message.contains("waiting to retry") == true)
            #expect(server.requests.count == 1)
        }
    }

    @Test("a repository's promise, cancelled, cancels the request under it", arguments: Transport.available)
    func cancelPromise(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.delay(.seconds(40)))
            let recorder = CompletionRecorder(base: transport.session(url: server.url))
            let promise = MessageRepository(store: recorder).read("1")
            #expect(await eventuallyAsync { server.requests.count == 1 })
            promise.cancel()
            await #expect { try await promise.value } throws: { ($0 as? DepotError)?.code == .cancelled }
            // The transport's own completion saw the cancellation, not the delayed 200.
            #expect(await eventuallyAsync { recorder.outcomes.count == 1 })
            #expect(recorder.outcomes.first == .cancelled)
        }
    }

    @Test("a Networking with only send(_:) works through the default, cancellation included")
    func defaultImplementation() async throws {
        try await withStubServer { server in
            // Given: a wrapper that implements only the async requirement
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let recorder = AsyncOnlyRecorder(base: NetworkingSession(url: server.url))
            let messages = MessageRepository(store: recorder)
            // When / Then: a read goes through the wrapper
            let message = try await messages.read("1").value
            #expect(message.text == "a")
            #expect(recorder.outcomes == [.success])
            // When: a read is cancelled mid-request
            server.inject(.delay(.seconds(40)))
            let promise = messages.read("1")
            #expect(await eventuallyAsync { server.requests.count == 2 })
            promise.cancel()
            // Then: the task running send(_:) was cancelled, so the wrapped request was too.
            await #expect { try await promise.value } throws: { ($0 as? DepotError)?.code == .cancelled }
            #expect(await eventuallyAsync { recorder.outcomes.count == 2 })
            #expect(recorder.outcomes.last == .cancelled)
        }
    }

    @Test("interceptors run on the completion path too", arguments: Transport.available)
    func interceptors(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(interceptors: [HeaderInterceptor.bearer("t0k")]))
            let (_, result) = await completion {
                session.send(NetworkRequest(method: .get, path: "messages/1"), completion: $0)
            }
            let response = try result.get()
            #expect(response.status == 200)
            #expect(server.requests.last?.header("authorization") == "Bearer t0k")
        }
    }

    /// Starts a call and waits for its completion.
    private func completion(
        _ start: (@escaping @Sendable (Result<NetworkResponse, any Error>) -> Void) -> any NetworkCall
    ) async -> (any NetworkCall, Result<NetworkResponse, any Error>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<NetworkResponse, any Error>.self)
        let call = start { continuation.yield($0) }
        let result = await stream.first { _ in true }
        return (call, result ?? .failure(DepotError(.abandoned, "no completion")))
    }
}

/// How a request ended, as a recorder saw it.
enum RecordedOutcome: Equatable, Sendable {
    case success, cancelled, failure

    init(_ result: Result<NetworkResponse, any Error>) {
        switch result {
        case .success: self = .success
        case .failure(let error): self = (error as? DepotError)?.code == .cancelled ? .cancelled : .failure
        }
    }
}

/// Wraps a transport, implementing only `send(_:)`: repositories reach it through the protocol's
/// default `send(_:completion:)`. Records how each request ended.
struct AsyncOnlyRecorder: Networking {
    let base: any Networking
    private let recorded = LockedValue<[RecordedOutcome]>([])

    init(base: any Networking) { self.base = base }

    var outcomes: [RecordedOutcome] { recorded.withLock { $0 } }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        do {
            let response = try await base.send(request)
            recorded.withLock { $0.append(.success) }
            return response
        } catch {
            recorded.withLock { $0.append(RecordedOutcome(.failure(error))) }
            throw error
        }
    }
}

/// Wraps a transport, forwarding `send(_:completion:)` to it and recording how each request ended.
struct CompletionRecorder: Networking {
    let base: any Networking
    private let recorded = LockedValue<[RecordedOutcome]>([])

    init(base: any Networking) { self.base = base }

    var outcomes: [RecordedOutcome] { recorded.withLock { $0 } }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        try await base.send(request)
    }

    func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        let recorded = self.recorded
        return base.send(request) { result in
            recorded.withLock { $0.append(RecordedOutcome(result)) }
            completion(result)
        }
    }
}

extension Result {
    /// The error, or nil for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
