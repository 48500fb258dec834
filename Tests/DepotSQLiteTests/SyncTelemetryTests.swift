import Depot
import DepotSQLite
import DepotTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// A span per synchronization and per forwarded entry, and the sync and outbox metrics.
@Suite struct SyncTelemetryTests {
    @Test("synchronize(): a span with pushed, pulled and pages, its requests' spans under it; depot.sync counters")
    func synchronizeSpan() async throws {
        try await withOutboxFixture(objects: messageObjects(1...5)) { fixture in
            let metrics = TestMetrics()
            var configuration = SessionConfiguration()
            configuration.metricsFactory = metrics
            let session = NetworkingSession(url: fixture.server.url, configuration: configuration)
            let puller = PullOnlyMessages(store: session, storage: fixture.storage)
            let tracer = InMemoryTracer()
            let report = try await withTracer(tracer) { try await puller.synchronize().value }
            #expect(report.pulled == 5)
            let spans = tracer.finishedSpans
            let sync = try #require(spans.first { $0.operationName == "synchronize messages" })
            #expect(sync.attributes["depot.sync.pulled"]?.toSpanAttribute() == 5)
            #expect(sync.attributes["depot.sync.pages"]?.toSpanAttribute() == 1)
            let list = try #require(spans.first { $0.operationName == "GET messages" })
            #expect(list.parentSpanID == sync.spanID && list.kind == .client)
            #expect(try metrics.expectCounter("depot.sync.pulled", [("collection", "messages")]).totalValue == 5)
        }
    }

    @Test("the forwarder: a span per entry around its request, and the outbox gauges after a pass")
    func forwardSpans() async throws {
        try await withOutboxFixture { fixture in
            let metrics = TestMetrics()
            var configuration = SessionConfiguration()
            configuration.metricsFactory = metrics
            let session = NetworkingSession(url: fixture.server.url, configuration: configuration)
            let messages = OutboxMessages(store: session, storage: fixture.storage, strategy: recordOnly)
            for index in 1...3 { _ = try await messages.create(Message(id: "m\(index)", text: "t")).value }
            let forwarder = fixture.forwarder(messages)
            let tracer = InMemoryTracer()
            let report = try await withTracer(tracer) { try await forwarder.flush().value }
            await forwarder.stop()
            #expect(report.delivered == 3)
            let spans = tracer.finishedSpans
            let entries = spans.filter { $0.operationName == "forward messages" }
            #expect(entries.count == 3)
            let posts = spans.filter { $0.operationName == "POST messages" }
            #expect(posts.count == 3 && Set(posts.compactMap(\.parentSpanID)) == Set(entries.map(\.spanID)))
            #expect(try metrics.expectGauge("depot.outbox.pending").lastValue == 0)
            #expect(try metrics.expectGauge("depot.outbox.rejected").lastValue == 0)
        }
    }
}
