import Depot
import DepotTesting
import Foundation
import MetricsTestKit
import Testing

/// One cache, not two: a 304 to a conditional GET reaches Depot as an answer on every transport
/// (URLSession's own cache is off), counted as 3xx; a 304 nobody asked for stays an error.
@Suite struct ConditionalGETTests {
    @Test("a 304 to If-None-Match is an answer, counted in depot.requests as 3xx", arguments: Transport.available)
    func notModifiedPassesThrough(transport: Transport) async throws {
        try await withStubServer { server in
            // Given: a resource serving validators, and a session recording metrics.
            server.resource("messages", objects: [["id": "1", "text": "one"]])
            server.servesValidators = true
            let metrics = TestMetrics()
            var configuration = SessionConfiguration()
            configuration.metricsFactory = metrics
            let session = transport.session(url: server.url, configuration: configuration)
            let first = try await session.send(NetworkRequest(method: .get, path: "messages/1"))
            let etag = try #require(first.header("etag"))

            // When: the same GET goes out with its ETag, twice.
            var conditional = NetworkRequest(method: .get, path: "messages/1", headers: ["If-None-Match": etag])
            conditional.template = "messages/:id"
            let second = try await session.send(conditional)
            let third = try await session.send(conditional)

            // Then: both are 304s with no body, handed over as answers, and counted as 3xx.
            #expect(second.status == 304 && second.body.isEmpty && third.status == 304)
            #expect(second.header("etag") == etag)
            #expect(server.notModifiedCount == 2)
            let counted = try metrics.expectCounter(
                "depot.requests", [("method", "GET"), ("route", "messages/:id"), ("status", "3xx")])
            #expect(counted.totalValue == 2)
        }
    }

    @Test("a 304 to a GET without validators is still an error", arguments: Transport.available)
    func unaskedNotModifiedFails(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/odd", response: .empty(status: 304))
            let session = transport.session(url: server.url)
            await #expect { try await session.send(NetworkRequest(method: .get, path: "odd")) } throws: {
                ($0 as? DepotError)?.status == 304
            }
        }
    }
}
