import Depot
import DepotTesting
import Foundation
import Testing

/// Every attempt of a session shares one deadline timer, armed for the earliest deadline: a
/// request's timeout stays its own whatever else the session has in flight.
@Suite struct SharedDeadlineTests {
    @Test(
        "a short request started after a long one on the same session times out at its own deadline",
        arguments: Transport.available)
    func earlierDeadlineAfterLaterOne(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: an answer trickling for 60 s, and a 120 s request to it under way
            server.route(.get, "/slow", response: .stream(bytes: 150, chunkSize: 1, interval: .milliseconds(400)))
            let arrived = Gate()
            server.observe(.get, "/slow") { _ in arrived.open() }
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(120), retryPolicy: .none))
            let long = Task { try await session.send(NetworkRequest(method: .get, path: "slow")) }
            await arrived.wait()

            // When: a 500 ms request to the same answer
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "slow", timeout: .milliseconds(500)))
            }

            // Then: it timed out while the server was still trickling, long before the 120 s one
            // would (told by the server, not by a clock: a loaded machine fires timers seconds late)
            #expect(error?.code == .timeout)
            #expect(server.streams.allSatisfy { !$0.isComplete }, "the 500 ms request waited for \(server.streams)")
            // And the long one, cancelled, ends cancelled, not timed out
            long.cancel()
            let longError = await #expect(throws: DepotError.self) { try await long.value }
            #expect(longError?.code == .cancelled)
        }
    }

    @Test(
        "a deadline later than the one the timer was armed for still fires after that one passed with nothing due",
        arguments: Transport.available)
    func laterDeadlineAfterSettledOne(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: a quick answer under a 1 s timeout (the timer armed for it, then nothing due)
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.route(.get, "/slow", response: .stream(bytes: 75, chunkSize: 1, interval: .milliseconds(400)))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(1), retryPolicy: .none))
            let message = try await MessageRepository(store: session).read("1").value
            #expect(message.text == "a")

            // When: a 2 s request to an answer that trickles for 30 s
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "slow", timeout: .seconds(2)))
            }

            // Then: a timeout while the server was still trickling
            #expect(error?.code == .timeout)
            #expect(server.streams.allSatisfy { !$0.isComplete }, "the 2 s request waited for \(server.streams)")
        }
    }
}
