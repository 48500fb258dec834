import Depot
import DepotTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// A client span and metrics for every request, named by the route template, never the raw id.
@Suite struct TelemetryTests {
    @Test("a client span per request: route template, OpenTelemetry attributes, trace context in the headers")
    func spans() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "one"]])
            let repository = MessageRepository(store: NetworkingSession(url: server.url))
            let tracer = InMemoryTracer()
            try await withTracer(tracer) {
                try await withSpan("screen") { _ in
                    _ = try await repository.read("1").value
                    await #expect(throws: DepotError.self) { try await repository.read("404").value }
                }
            }
            let spans = tracer.finishedSpans
            let requests = spans.filter { $0.operationName == "GET messages/:id" }
            #expect(requests.count == 2)
            let parent = try #require(spans.first { $0.operationName == "screen" })
            for span in requests {
                #expect(span.kind == .client && span.parentSpanID == parent.spanID)
                #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
                #expect(span.attributes["url.template"]?.toSpanAttribute() == "messages/:id")
                #expect(span.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
            }
            let ok = try #require(
                requests.first { $0.attributes["http.response.status_code"]?.toSpanAttribute() == 200 })
            #expect(ok.status == nil)
            let missing = try #require(
                requests.first { $0.attributes["http.response.status_code"]?.toSpanAttribute() == 404 })
            #expect(missing.attributes["error.type"]?.toSpanAttribute() == "404" && missing.status?.code == .error)
            // Each request carried its own span's context.
            let sent = server.requests.filter { $0.path.hasPrefix("/messages/") }
            #expect(Set(sent.compactMap { $0.header("in-memory-span-id") }) == Set(requests.map(\.spanID)))
            #expect(sent.allSatisfy { $0.header("in-memory-trace-id") == parent.traceID })
        }
    }

    @Test("depot.requests and depot.request.duration, by method, route template and status class")
    func metrics() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "one"]])
            let metrics = TestMetrics()
            var configuration = SessionConfiguration()
            configuration.metricsFactory = metrics
            let repository = MessageRepository(store: NetworkingSession(url: server.url, configuration: configuration))
            _ = try await repository.read("1").value
            _ = try await repository.read("1").value
            await #expect(throws: DepotError.self) { try await repository.read("nope").value }
            _ = try await repository.create(Message(id: "2", text: "two")).value
            let read = [("method", "GET"), ("route", "messages/:id")]
            #expect(try metrics.expectCounter("depot.requests", read + [("status", "2xx")]).totalValue == 2)
            #expect(try metrics.expectCounter("depot.requests", read + [("status", "4xx")]).totalValue == 1)
            #expect(try metrics.expectTimer("depot.request.duration", read).values.count == 3)
            let create = [("method", "POST"), ("route", "messages"), ("status", "2xx")]
            #expect(try metrics.expectCounter("depot.requests", create).totalValue == 1)
        }
    }
}
