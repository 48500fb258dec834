import Depot
import DepotTesting
import Foundation
import Testing

/// A transport through Depot's pipeline whose first attempt reaches the server (which applies the
/// write) but loses its answer as a refused connection, and whose later attempts fail their name
/// lookup: a retry that never left the process after one that did.
private struct LookupFailsOnRetry: Networking {
    let pipeline: RequestPipeline
    let server: NetworkingSession
    let attempts = LockedCounter()

    init(url: URL, server: NetworkingSession) {
        pipeline = RequestPipeline(
            baseURL: url,
            configuration: SessionConfiguration(
                retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), jitter: 0)))
        self.server = server
    }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let (server, attempts) = (self.server, self.attempts)
        return try await pipeline.send(request) { sent, _, _ in
            if attempts.increment() == 1 {
                _ = try? await server.send(sent)
                throw DepotError(.transport, "connection refused", underlying: URLError(.cannotConnectToHost))
            }
            throw DepotError(.transport, "no such host", underlying: URLError(.dnsLookupFailed))
        }
    }
}

@Suite struct RetriedAttemptsTests {
    @Test("a send retried until a failed name lookup still counts as attempted: a later edit is not folded into it")
    func lookupFailureAfterAnAttemptKeepsTheAttempt() async throws {
        try await withOutboxFixture { fixture in
            // Given: a create recorded, sent once (the server applied it, the answer was lost),
            // then retried by the pipeline into a failed name lookup
            let scripted = LookupFailsOnRetry(url: fixture.server.url, server: fixture.session)
            let lossy = OutboxMessages(store: scripted, storage: fixture.storage, strategy: recordOnly)
            _ = try await lossy.create(Message(id: "1", text: "one")).value
            _ = try? await fixture.forwarder(lossy).flush().value
            #expect(scripted.attempts.value >= 2, "the pipeline retried")
            let sent = try #require(try await fixture.outbox().first)
            // Then: the attempt stands
            #expect(sent.attempts == 1)
            // When: the app edits it, and the outbox goes through a working transport
            _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "edited")).value
            #expect(try await fixture.outbox().count == 2, "the edit goes as its own entry")
            _ = try await fixture.forwarder().flush().value
            // Then: one object, with the edit (not the create's answer replayed for it)
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(fixture.serverObject("1")?["text"] == "edited")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
