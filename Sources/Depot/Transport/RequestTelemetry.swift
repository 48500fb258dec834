import Foundation
import HTTPTypes
import Metrics
import Tracing

/// One attempt's trace span and metrics: a client span named `<METHOD> <template>` with the
/// OpenTelemetry HTTP attributes (method, URL template — never the raw id —, server, status,
/// error type), the trace context injected into the request's headers through the active
/// instrument, and `depot.requests` / `depot.request.duration`. Nothing is made when no tracer and
/// no metrics backend is there.
struct RequestTelemetry {
    private let span: (any Span)?
    private let factory: (any MetricsFactory)?
    private let method: String
    private let template: String
    private let start: ContinuousClock.Instant

    /// Starts the telemetry of an attempt of `request` to `url`; returns the request with the
    /// trace context in its headers. Nil telemetry when there is nothing to record.
    static func start(
        _ request: NetworkRequest, url: URL, attempt: Int, configuration: SessionConfiguration
    ) -> (NetworkRequest, RequestTelemetry?) {
        let tracer = InstrumentationSystem.tracer
        let tracing = !(tracer is NoOpTracer)
        let factory: (any MetricsFactory)? =
            configuration.metricsFactory ?? (MetricsSystem.factory is NOOPMetricsHandler ? nil : MetricsSystem.factory)
        guard tracing || factory != nil else { return (request, nil) }
        let method = request.method.rawValue
        let template = request.template ?? request.path
        var request = request
        var span: (any Span)?
        if tracing {
            let started = tracer.startSpan("\(method) \(template)", ofKind: .client)
            started.attributes["http.request.method"] = method
            started.attributes["url.template"] = template
            if let host = url.host { started.attributes["server.address"] = host }
            if let port = url.port { started.attributes["server.port"] = port }
            if attempt > 1 { started.attributes["http.request.resend_count"] = attempt - 1 }
            tracer.inject(started.context, into: &request.headers, using: HTTPFieldsInjector())
            span = started
        }
        return (
            request, RequestTelemetry(span: span, factory: factory, method: method, template: template, start: .now)
        )
    }

    /// Ends the span and records the metrics: `status` is the answer's, nil when there was none.
    func end(status: Int?, error: DepotError?) {
        if let span {
            if let status { span.attributes["http.response.status_code"] = status }
            if let error {
                span.attributes["error.type"] = status.map(String.init) ?? error.code.description
                span.setStatus(SpanStatus(code: .error, message: error.message))
            }
            span.end()
        }
        if let factory {
            let statusClass = status.map { "\($0 / 100)xx" } ?? "error"
            Counter(
                label: "depot.requests",
                dimensions: [("method", method), ("route", template), ("status", statusClass)], factory: factory
            ).increment()
            Metrics.Timer(
                label: "depot.request.duration", dimensions: [("method", method), ("route", template)],
                factory: factory
            ).recordNanoseconds(Int64((ContinuousClock.now - start).nanoseconds))
        }
    }
}

/// Puts trace context values into a request's header fields.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : scaled + attoseconds / 1_000_000_000
    }
}
