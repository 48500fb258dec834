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
            // Given: an answer whose 30 bytes come one every 400 ms (12 s in all)
            server.route(.get, "/slow", response: .stream(bytes: 30, chunkSize: 1, interval: .milliseconds(400)))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(1), retryPolicy: .none))

            // When
            let start = ContinuousClock.now
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "slow"))
            }
            let elapsed = ContinuousClock.now - start

            // Then: a timeout, long before the server was done (the slack is for a loaded 2-core
            // machine, where timers fire late; the trickle alone would have taken 12 s)
            #expect(error?.code == .timeout)
            #expect(elapsed < .seconds(8), "a 1 s request ran \(elapsed)")
        }
    }

    @Test(
        "a request's own whole-second timeout is total too, through the completion call",
        arguments: Transport.available)
    func tricklingServerCompletion(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/slow", response: .stream(bytes: 30, chunkSize: 1, interval: .milliseconds(400)))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: .none))
            let start = ContinuousClock.now
            let result = await withCheckedContinuation { continuation in
                session.send(NetworkRequest(method: .get, path: "slow", timeout: .seconds(1))) {
                    continuation.resume(returning: $0)
                }
            }
            let elapsed = ContinuousClock.now - start
            #expect(throws: DepotError.self) { try result.get() }
            #expect((result.failure as? DepotError)?.code == .timeout)
            #expect(elapsed < .seconds(8), "a 1 s request ran \(elapsed)")
        }
    }
}
