import Foundation
import Logging
import Metrics

/// What a running action is given: the executor's session (counted), storage and logger, its own
/// id, and the means to record counts and progress.
///
/// ```swift
/// func execute(context: ActionContext) async throws -> Int {
///     let session = try context.requireSession()            // requests and bytes counted
///     let rows = try await session.request(.get, "authors", as: [Author].self).value
///     context.progress(completed: 1, total: 2, message: "fetched")
///     try context.checkCancellation()
///     context.record(.inserted, rows.count)
///     return rows.count
/// }
/// ```
public final class ActionContext: Sendable {
    /// The action's id within its executor.
    public let id: ActionID
    /// The action's name.
    public let name: String
    /// The executor's session, wrapped so every request and its body bytes count in the action's
    /// statistics; `nil` when the executor was made without one.
    public let session: (any Networking)?
    /// The executor's storage, when it was given one.
    public let storage: (any Storage)?
    /// The executor's logger with `action` and `action.id` metadata.
    public let logger: Logger

    private let record: ActionRecord

    init(record: ActionRecord, session: (any Networking)?, storage: (any Storage)?, logger: Logger) {
        self.record = record
        id = record.id
        name = record.name
        self.storage = storage
        var logger = logger
        logger[metadataKey: "action"] = "\(record.name)"
        logger[metadataKey: "action.id"] = "\(record.id.rawValue)"
        self.logger = logger
        self.session = session.map { MeteredNetworking(base: $0, record: record) }
    }

    /// Adds `amount` (1 by default) to `counter` in the action's statistics.
    public func record(_ counter: ActionStatistics.Counter, _ amount: Int = 1) {
        record.record(counter, amount)
    }

    /// Reports progress as an ``ActionEvent/Kind-swift.enum/progress(_:)`` event.
    public func progress(completed: Int, total: Int? = nil, message: String? = nil) {
        record.progress(ActionProgress(completed: completed, total: total, message: message))
    }

    /// The statistics so far.
    public var statistics: ActionStatistics { record.statistics }

    /// True once the action was cancelled, or its task was.
    public var isCancelled: Bool { record.isCancelRequested || Task.isCancelled }

    /// True once the action was asked to stop gracefully (``ActionProxy/stop()``, an
    /// ``ActionExecutor`` shutting down with `stopRunning`, an ``AutoSync`` stopping, a service
    /// group's graceful shutdown), or cancelled: end after the request in flight, storing its
    /// answer, and start no new one. Unlike a cancellation, a stop interrupts nothing in flight.
    ///
    /// ```swift
    /// for page in pages {
    ///     guard !context.isStopping else { break }   // the last page's answer is stored
    ///     try await store(try await fetch(page))
    /// }
    /// ```
    public var isStopping: Bool { record.isStopRequested || isCancelled }

    /// Throws `DepotError` `.cancelled` once the action was cancelled.
    public func checkCancellation() throws {
        if isCancelled { throw DepotError.cancelled }
    }

    /// ``session``, or a `DepotError` `.invalidRequest` when the executor has none.
    public func requireSession() throws -> any Networking {
        guard let session else {
            throw DepotError(.invalidRequest, "the executor running \(name) was made without a session")
        }
        return session
    }

    /// `session` wrapped so its requests and bytes count in this action's statistics, for an
    /// action that brings its own (a repository's `store`, say).
    public func counting(_ session: any Networking) -> any Networking {
        MeteredNetworking(base: session, record: record)
    }
}

/// A session that counts each request and its body bytes into an action's statistics.
struct MeteredNetworking: Networking {
    let base: any Networking
    let record: ActionRecord

    /// The base session's.
    var baseURL: URL? { base.baseURL }
    var routeMemory: RouteMemory? { base.routeMemory }
    var metricsFactory: (any MetricsFactory)? { base.metricsFactory }
    var account: String? { base.account }
    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest { try await base.prepared(request) }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        try await base.sendCounting(request) { requests, sent, received in
            if requests > 0 { record.record(.requests, requests) }
            if sent > 0 { record.record(.bytesSent, sent) }
            if received > 0 { record.record(.bytesReceived, received) }
        }
    }
}
