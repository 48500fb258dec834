import Foundation
import Tracing

/// One synchronization run's inputs, shared by its push and pull halves.
struct Synchronizer<Entity: Identifiable & Sendable>: Sendable where Entity.ID: PathComponentConvertible {
    let store: Networking
    let storage: Storage
    let collection: String
    let configuration: SynchronizationConfiguration
    let batchRoute: Route
    let deleteRoute: Route
    let listRoute: Route
    let headers: [String: String]
    let envelope: String?
    /// The collection's create route: where ``PushMode/bulkCollection`` posts its array.
    let createRoute: Route
    /// The repository as the outbox sees it: the per-entity path of ``PushMode/each``; nil for a
    /// synchronizer that only reads pages (``CRUDNetworkingRepository/pages(query:pagination:)``).
    let channel: OutboxChannel?
    /// True once a graceful stop was asked for (``ActionContext/isStopping``): the push and the
    /// pull end after the entry, batch, delete or page in flight, its answer stored, and the run
    /// returns what it did (``SynchronizationReport/stoppedEarly``). Unlike task cancellation,
    /// which cancels the request in flight, it is only read between requests, and after each
    /// page's merge (a page read ahead meanwhile is then dropped, never stored).
    var shouldStop: @Sendable () -> Bool = { false }
    /// The app's headers that identify a caller: every cached page varies on them too
    /// (``RepositoryConfiguration/identifyingHeaders``).
    var identifyingHeaders: [String] = []
    /// How write bodies are built and answers' items read (request envelope, JSON:API documents).
    var shape = BodyShape.plain

    typealias Progress = @Sendable (SynchronizationReport) -> Void

    func run(progress: Progress?) async throws -> SynchronizationReport {
        let report = try await DepotTelemetry.withOptionalSpan("synchronize \(collection)") { span in
            var report = SynchronizationReport()
            if configuration.push {
                try await adoptUnsynced()
                try await push(&report, progress: progress)
            }
            if shouldStop() {
                report.stoppedEarly = true
                report.notes.append("stopped gracefully before the pull; the rest goes on the next run")
            } else {
                try await pull(&report, progress: progress)
                if !report.pullCompleted, shouldStop() {
                    report.stoppedEarly = true
                    report.notes.append("stopped gracefully during the pull; the cursor stays where it was")
                }
            }
            span?.attributes["depot.collection"] = collection
            span?.attributes["depot.sync.pushed"] = report.pushed
            span?.attributes["depot.sync.pulled"] = report.pulled
            span?.attributes["depot.sync.pages"] = report.pages
            if let error = report.errors.first {
                span?.attributes["error.type"] = error.status.map(String.init) ?? error.code.description
                span?.setStatus(SpanStatus(code: .error, message: error.message))
            }
            return report
        }
        if let factory = DepotTelemetry.factory(store) {
            let dimensions = [("collection", collection)]
            DepotTelemetry.count("depot.sync.pushed", report.pushed, dimensions, factory)
            DepotTelemetry.count("depot.sync.pulled", report.pulled, dimensions, factory)
        }
        return report
    }

    /// Sends `request`; a non-cancellation failure is returned as a `DepotError` to report.
    func send(_ request: NetworkRequest) async throws -> Result<NetworkResponse, DepotError> {
        do {
            return .success(try await store.send(request))
        } catch let error as DepotError {
            if error.isCancellation { throw error }
            return .failure(error)
        } catch is CancellationError {
            throw DepotError.cancelled
        } catch {
            return .failure(DepotError(.transport, "\(error)", request: summary(of: request), underlying: error))
        }
    }

    /// The answer's body as JSON: an array as it is, else unwrapped from the collection envelope,
    /// which must hold an array.
    func array(in response: NetworkResponse, of request: NetworkRequest, parsed: JSON? = nil)
        -> Result<[JSON], DepotError>
    {
        do {
            let document = try parsed ?? JSON(parsing: response.body)
            // An answer that is the array itself is read whole, envelope or not: a batch route
            // answering `[…]` (a serializer with `many=True`) where lists come in `{"rows": […]}`.
            // Its write was applied; reading it as `.decoding` left the batch open for ever.
            let json = document.arrayValue != nil ? document : try JSONMapping.unwrap(document, envelope: envelope)
            guard let elements = json.arrayValue else {
                throw DepotError(.decoding, "expected a JSON array, found \(json.kindName)")
            }
            return .success(shape.items(elements))
        } catch {
            var failure =
                error as? DepotError ?? DepotError(.decoding, "unreadable answer: \(error)", underlying: error)
            failure.request = failure.request ?? summary(of: request)
            failure.status = failure.status ?? response.status
            failure.responseBody = failure.responseBody ?? (response.body.isEmpty ? nil : response.body)
            return .failure(failure)
        }
    }

    func summary(of request: NetworkRequest) -> DepotError.Request {
        let query = request.query.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        return DepotError.Request(
            method: request.method.rawValue, url: request.path + (query.isEmpty ? "" : "?" + query))
    }

    /// An id as the store keys it: a string, or an integer's digits; nil for anything else.
    static func idText(_ json: JSON?) -> String? { MovedIDs.idText(json) }

    /// `text` as the store spells the id (``PathComponentConvertible/pathComponent``): a UUID in
    /// its one canonical spelling however the server printed it (lower case, say), so a pulled
    /// deletion or a quarantined row names the record the entity's id does. Other ids as they are.
    static func storedID(_ text: String) -> String {
        guard Entity.ID.self == UUID.self, let uuid = UUID(uuidString: text) else { return text }
        return uuid.pathComponent
    }

    /// A server object as the entity's JSON (keys it does not model dropped), with its id.
    func decode(_ object: JSONObject) throws -> (id: String, object: JSONObject) {
        let entity = try JSONMapping.entity(Entity.self, from: .object(object), coding: shape.coding)
        return (entity.id.pathComponent, try JSONMapping.object(entity, coding: shape.coding))
    }
}
