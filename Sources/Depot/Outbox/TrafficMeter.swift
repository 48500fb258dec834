import Foundation

/// Counts the requests and body bytes an outbox entry's processing sends, for its
/// ``ForwardingReport``: the engine installs one per entry as a task-local, the channel adds to it.
final class TrafficMeter: Sendable {
    /// The meter of the entry being processed on this task, if any.
    @TaskLocal static var current: TrafficMeter?

    private let counts = LockedValue((requests: 0, sent: 0, received: 0))

    /// Sends `request` through `store`, counting it in the current meter.
    static func send(_ request: NetworkRequest, through store: any Networking) async throws -> NetworkResponse {
        guard let meter = current else { return try await store.send(request) }
        return try await store.sendCounting(request) { requests, sent, received in
            meter.counts.withLock {
                $0.requests += requests
                $0.sent += sent
                $0.received += received
            }
        }
    }

    /// Adds what was counted to `report`.
    func add(to report: inout ForwardingReport) {
        let counts = self.counts.withLock { $0 }
        report.requests += counts.requests
        report.bytesSent += counts.sent
        report.bytesReceived += counts.received
    }
}
