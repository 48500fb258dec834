import Depot
import DepotTesting
import Foundation
import Testing

/// A timeout bounds the whole request. URLSession counts a whole-second timeout as an idle timeout:
/// a server that trickled a byte now and then kept a 1 s request alive as long as it trickled.
@Suite struct TotalTimeoutTests {
    @Test(
        "a timeout that is not one: a server trickling a byte every 400 ms still times out a 1 s request",
        arguments: Transport.available)
    func tricklingServer(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: an answer whose 75 bytes come one every 400 ms (30 s in all)
            server.route(.get, "/slow", response: .stream(bytes: 75, chunkSize: 1, interval: .milliseconds(400)))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(1), retryPolicy: .none))

            // When
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "slow"))
            }

            // Then: a timeout while the server was still trickling (told by the server, not by a
            // clock: on a loaded machine the 1 s timer fires seconds late, and the trickle slows too)
            #expect(error?.code == .timeout)
            // (no stream at all when the deadline passed before the server began answering)
            #expect(server.streams.allSatisfy { !$0.isComplete }, "the 1 s request waited for \(server.streams)")
        }
    }

    @Test(
        "a request's own whole-second timeout is total too, through the completion call",
        arguments: Transport.available)
    func tricklingServerCompletion(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/slow", response: .stream(bytes: 75, chunkSize: 1, interval: .milliseconds(400)))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: .none))
            let result = await withCheckedContinuation { continuation in
                session.send(NetworkRequest(method: .get, path: "slow", timeout: .seconds(1))) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(throws: DepotError.self) { try result.get() }
            #expect((result.failure as? DepotError)?.code == .timeout)
            // (no stream at all when the deadline passed before the server began answering)
            #expect(server.streams.allSatisfy { !$0.isComplete }, "the 1 s request waited for \(server.streams)")
        }
    }
}
