import CoreMetrics
import Foundation
import Logging

extension ActionExecutor {
    /// Surfaces every action event outside the executor: to swift-log, and to swift-metrics
    /// counters (`depot.actions.<event>`, and on the end `depot.actions.requests` and
    /// `depot.actions.bytes`) and a timer (`depot.actions.duration`), each with an `action`
    /// dimension (the timer adds `outcome`).
    struct Observer: Sendable {
        let logger: Logger
        let factory: (any MetricsFactory)?

        func observe(_ event: ActionEvent) {
            log(event)
            let dimensions = [("action", event.name)]
            if case .progress = event.kind { return }
            counter("depot.actions.\(event.kind.name)", dimensions).increment()
            guard event.kind.isTerminal else { return }
            counter("depot.actions.requests", dimensions).increment(by: Int64(event.statistics.requests))
            counter("depot.actions.bytes", dimensions).increment(by: Int64(event.statistics.bytes))
            if let duration = event.statistics.duration {
                let nanoseconds =
                    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
                timer("depot.actions.duration", dimensions + [("outcome", event.kind.name)])
                    .recordNanoseconds(nanoseconds)
            }
        }

        private func log(_ event: ActionEvent) {
            var metadata: Logger.Metadata = ["action": "\(event.name)", "action.id": "\(event.action.rawValue)"]
            switch event.kind {
            case .submitted, .started:
                logger.debug("action \(event.kind.name)", metadata: metadata)
            case .progress(let progress):
                metadata["completed"] = "\(progress.completed)"
                if let total = progress.total { metadata["total"] = "\(total)" }
                logger.trace("action progress\(progress.message.map { ": \($0)" } ?? "")", metadata: metadata)
            case .finished:
                metadata["statistics"] = "\(event.statistics)"
                logger.info("action finished", metadata: metadata)
            case .failed(let error):
                metadata["error"] = "\(error)"
                metadata["statistics"] = "\(event.statistics)"
                logger.error("action failed", metadata: metadata)
            case .cancelled:
                metadata["statistics"] = "\(event.statistics)"
                logger.notice("action cancelled", metadata: metadata)
            }
        }

        private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
            if let factory { return Counter(label: label, dimensions: dimensions, factory: factory) }
            return Counter(label: label, dimensions: dimensions)
        }

        private func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
            if let factory { return CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory) }
            return CoreMetrics.Timer(label: label, dimensions: dimensions)
        }
    }
}
