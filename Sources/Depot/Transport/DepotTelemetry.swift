import Foundation
import Metrics
import Tracing

/// Spans and metrics beyond single requests (a synchronization, a forwarded entry, the outbox),
/// made only when a tracer or a metrics backend is there.
enum DepotTelemetry {
    /// Where metrics of work through `store` go: its own factory, else the bootstrapped one; nil
    /// when nothing is bootstrapped (no metric is made).
    static func factory(_ store: (any Networking)?) -> (any MetricsFactory)? {
        store?.metricsFactory ?? (MetricsSystem.factory is NOOPMetricsHandler ? nil : MetricsSystem.factory)
    }

    /// Runs `body` in a span named `name` (the current span of the requests it makes), or
    /// without one when no tracer is there.
    static func withOptionalSpan<Output>(
        _ name: String, _ body: ((any Span)?) async throws -> Output
    ) async rethrows -> Output {
        guard !(InstrumentationSystem.tracer is NoOpTracer) else { return try await body(nil) }
        return try await withSpan(name) { span in try await body(span) }
    }

    /// Adds `value` to the counter `label` (when positive).
    static func count(_ label: String, _ value: Int, _ dimensions: [(String, String)], _ factory: any MetricsFactory) {
        guard value > 0 else { return }
        Counter(label: label, dimensions: dimensions, factory: factory).increment(by: Int64(value))
    }
}
