import Foundation

/// A ``Forwarder/flush()`` as an action: its statistics count the entries delivered (`pushed`)
/// and the requests and bytes the flush sent.
///
/// ```swift
/// let proxy = executor.execute(FlushAction(forwarder))
/// let report = try await proxy.result.value
/// print(proxy.statistics.pushed, proxy.statistics.requests)
/// ```
///
/// Cancelling the action cancels the flush's promise. Its serialization key is
/// `flush:<collections>`, so flushes of one forwarder's collections run one at a time.
public struct FlushAction: Action {
    /// The forwarder flushed.
    public let forwarder: Forwarder

    /// An action that flushes `forwarder`.
    public init(_ forwarder: Forwarder) { self.forwarder = forwarder }

    /// `Flush <collections>`.
    public var name: String { "Flush \(forwarder.collections.sorted().joined(separator: ","))" }

    /// `flush:<collections>`.
    public var serializationKey: String? { "flush:\(forwarder.collections.sorted().joined(separator: ","))" }

    /// Flushes and records the report's counts.
    ///
    /// - Returns: the flush's report.
    /// - Throws: `DepotError` `.cancelled` when cancelled or when the forwarder stops first.
    public func execute(context: ActionContext) async throws -> ForwardingReport {
        let report = try await forwarder.flush().value
        context.record(.pushed, report.delivered)
        context.record(.requests, report.requests)
        context.record(.bytesSent, report.bytesSent)
        context.record(.bytesReceived, report.bytesReceived)
        return report
    }
}
