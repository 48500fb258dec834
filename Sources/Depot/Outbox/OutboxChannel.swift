import Foundation

/// One repository as the outbox sees it: where an entry of its collection goes, and how the
/// server's answer reads as the entity's id and stored object.
struct OutboxChannel: Sendable {
    let collection: String
    let store: Networking
    let configuration: RepositoryConfiguration
    let routes: [RepositoryOperation: Route]
    let conflictPolicy: ConflictPolicy
    /// How bodies are written and answers read (request envelope, JSON:API documents).
    let shape: BodyShape
    /// The fields the app writes: the judge of whether the server's copy changed.
    let fields: WrittenFields
    /// A server object as the entity's id and its JSON as the store keeps it.
    let decode: @Sendable (JSON) throws -> (id: String, object: JSONObject)
    /// The account this channel's requests are made for (``NetworkRequest/account``): the
    /// entry's it sends (``sending(for:)``); nil for any.
    private(set) var account: String?

    /// This channel, its requests made for the account `entry` was recorded under.
    func sending(for entry: OutboxEntry) -> OutboxChannel {
        var channel = self
        channel.account = entry.account
        return channel
    }

    /// Whether `entry` was recorded under an account other than the one this channel's session
    /// declares now (``Networking/account``): it is held, never sent under another's credential.
    /// An entry recorded under none goes under any.
    func isForAnotherAccount(_ entry: OutboxEntry) -> Bool {
        guard let account = entry.account else { return false }
        return store.account != account
    }

    /// The channel of `repository`, sending through `store` (the repository's own when nil).
    init<Repository: CRUDNetworkingStorageRepository>(_ repository: Repository, store: (any Networking)? = nil) {
        collection = repository.collection
        self.store = store ?? repository.store
        configuration = repository.configuration
        routes = Dictionary(
            uniqueKeysWithValues: [RepositoryOperation.create, .read, .update, .patch, .delete].map {
                ($0, repository.route(for: $0))
            })
        conflictPolicy = repository.conflictPolicy
        shape = BodyShape(configuration, entity: Repository.Entity.self)
        fields = WrittenFields(configuration, entity: Repository.Entity.self)
        let coding = configuration.coding
        decode = { json in
            let entity = try JSONMapping.entity(Repository.Entity.self, from: json, coding: coding)
            return (entity.id.pathComponent, try JSONMapping.object(entity, coding: coding))
        }
    }

    /// The server's answer to a write: its object (unwrapped from the envelope) and `ETag`.
    struct Answer: Sendable, Hashable {
        var json: JSONObject
        var etag: String?
    }

    /// How the server took a write.
    enum Outcome: Sendable {
        /// Taken; the answer is nil for a delete.
        case delivered(Answer?)
        /// Worth another attempt later: no connection, a timeout, 401, 408, 429, 5xx.
        case retry(DepotError)
        /// 409 or 412: the entity changed on the server.
        case conflict(DepotError)
        /// Refused for good, or taken with an answer that cannot be read.
        case reject(DepotError)
    }

    /// Sends `operation` for `entityID` with `payload` under `idempotencyKey`, with `If-Match`
    /// when `etag` may go out; `base` is the server's last object, which a `204` to a PATCH stands
    /// for with the patch applied. `timeout` bounds the request (the session's when nil).
    ///
    /// A write sent without `If-Match` and answered `428 Precondition Required` reads the entity
    /// as the server has it now, and ``PreconditionRequired/decide(_:base:server:mayResend:)``
    /// decides: the write goes once more under `If-Match`, or it is a ``Outcome/conflict(_:)``,
    /// for the repository's conflict policy (a remote-first write's caller gets it as its error).
    ///
    /// A write whose `etag` is ``ETag/unknownVersion`` (a write's answer left the record's version
    /// unknown) reads the entity first the same way, and
    /// ``PreconditionRequired/decideUnknownVersion(base:server:)`` decides: it goes under the
    /// `ETag` just read, or is a ``Outcome/conflict(_:)``; it never goes without `If-Match` over a
    /// version the app has not seen.
    ///
    /// `madeID` says the store recorded `entityID` as one Depot made (a ``TemporaryID``): a create
    /// leaves it out of its body, and the server's answer names the entity.
    ///
    /// - Throws: only `DepotError` `.cancelled`; every other failure is an ``Outcome``.
    func send(
        _ operation: OutboxOperation, entityID: String, payload: JSON?, idempotencyKey: String, etag: String?,
        base: JSONObject?, timeout: Duration? = nil, madeID: Bool = false
    ) async throws -> Outcome {
        var etag = etag
        if etag == ETag.unknownVersion, operation != .create {
            etag = nil
            if configuration.conditionalWrites {
                switch try await knownVersion(entityID: entityID, base: base, timeout: timeout) {
                case .success(let fresh): etag = fresh
                case .failure(let settled): return settled.outcome
                }
            }
        }
        let outcome = try await negotiating(
            operation, entityID: entityID, payload: payload, idempotencyKey: idempotencyKey, etag: etag, base: base,
            timeout: timeout, madeID: madeID)
        guard case .reject(let error) = outcome, error.status == 428, operation != .create else { return outcome }
        let server: Answer?
        switch try await current(entityID: entityID, timeout: timeout) {
        case .success(let answer): server = answer
        case .failure(let failure):
            // The read failed: the write waits for a retry, or is refused with the read's refusal.
            if case .retry = Self.classify(failure, operation: .update) { return .retry(failure) }
            return .reject(failure)
        }
        switch PreconditionRequired.decide(
            error, base: base.map(JSON.object), server: server.map { (JSON.object($0.json), $0.etag) }, fields: fields,
            mayResend: configuration.conditionalWrites)
        {
        case .conflict(let conflict):
            return .conflict(conflict)
        case .sendAgain(let fresh):
            return try await negotiating(
                operation, entityID: entityID, payload: payload, idempotencyKey: idempotencyKey, etag: fresh,
                base: base, timeout: timeout)
        }
    }

    /// A write that does not go: its outcome, as an error value for `Result`.
    private struct Settled: Error {
        var outcome: Outcome
    }

    /// The `If-Match` of a write whose record's version is unknown: the server's copy read now
    /// (``current(entityID:timeout:)``), judged against `base`; or the write's outcome without
    /// sending it (a conflict, or a failed read's retry or refusal).
    private func knownVersion(
        entityID: String, base: JSONObject?, timeout: Duration?
    ) async throws -> Result<String?, Settled> {
        let server: Answer?
        switch try await current(entityID: entityID, timeout: timeout) {
        case .success(let answer): server = answer
        case .failure(let failure):
            // The read failed: the write waits for a retry, or is refused with the read's refusal.
            if case .retry = Self.classify(failure, operation: .update) {
                return .failure(Settled(outcome: .retry(failure)))
            }
            return .failure(Settled(outcome: .reject(failure)))
        }
        switch PreconditionRequired.decideUnknownVersion(
            base: base.map(JSON.object), server: server.map { (JSON.object($0.json), $0.etag) }, fields: fields)
        {
        case .success(let etag): return .success(etag)
        case .failure(let conflict): return .failure(Settled(outcome: .conflict(conflict)))
        }
    }

    /// ``send(_:entityID:payload:idempotencyKey:etag:base:timeout:)`` without the 428 step: a PATCH
    /// refused with 415 goes again in the format the server reads.
    private func negotiating(
        _ operation: OutboxOperation, entityID: String, payload: JSON?, idempotencyKey: String, etag: String?,
        base: JSONObject?, timeout: Duration?, madeID: Bool = false
    ) async throws -> Outcome {
        guard operation == .patch else {
            return try await send(
                operation, entityID: entityID, payload: payload, idempotencyKey: idempotencyKey, etag: etag,
                base: base, timeout: timeout, format: nil, madeID: madeID)
        }
        let configured = configuration.patchFormat
        let route = routes[.patch]!
        let format = store.routeMemory?.patchFormat(for: route, configured: configured) ?? configured
        let outcome = try await send(
            operation, entityID: entityID, payload: payload, idempotencyKey: idempotencyKey, etag: etag, base: base,
            timeout: timeout, format: format)
        // A 415: the server did not act, so the same write goes again in the format it reads.
        guard case .reject(let error) = outcome, let next = PatchFormat.negotiated(after: error, sentAs: format) else {
            return outcome
        }
        store.routeMemory?.remember(next, for: route, configured: configured, after: format)
        return try await send(
            operation, entityID: entityID, payload: payload, idempotencyKey: idempotencyKey, etag: etag, base: base,
            timeout: timeout, format: next)
    }

    private func send(
        _ operation: OutboxOperation, entityID: String, payload: JSON?, idempotencyKey: String, etag: String?,
        base: JSONObject?, timeout: Duration?, format: PatchFormat?, madeID: Bool = false
    ) async throws -> Outcome {
        var extra = ["Idempotency-Key": idempotencyKey]
        if operation != .create, configuration.conditionalWrites, let etag, ETag.isStrong(etag) {
            extra["If-Match"] = etag
        }
        var body: JSON?
        if let payload, operation != .delete {
            let written = shape.write(
                RepositoryOperation(operation), payload, id: entityID, format: format, base: base.map(JSON.object),
                temporaryID: madeID ? entityID : nil)
            body = written.body
            if let contentType = written.contentType { extra["Content-Type"] = contentType }
        }
        let route: Route
        switch operation {
        case .create: route = routes[.create]!
        case .update: route = routes[.update]!
        case .patch: route = routes[.patch]!
        case .delete: route = routes[.delete]!
        }
        var request: NetworkRequest
        do {
            request = try makeRequest(
                route.method, try route.checkedPath(id: operation == .create && route.method != .put ? nil : entityID),
                template: route.path, headers: headers(adding: extra), body: body)
        } catch {
            return .reject(error as? DepotError ?? DepotError(.encoding, "\(error)", underlying: error))
        }
        request.timeoutCap = timeout
        request.account = account
        let response: NetworkResponse
        do {
            response = try await TrafficMeter.send(request, through: store)
        } catch {
            let failure = Self.depotError(error, request)
            if failure.isCancellation { throw failure }
            return Self.classify(failure, operation: operation)
        }
        if operation == .delete { return .delivered(nil) }
        // An empty answer (201 with a Location, 202, 204), the id alone, a row without its id:
        // the server holds what was sent (a patch: applied to the last object it sent).
        let reading = WriteAnswerReading(
            operation: RepositoryOperation(operation),
            sent: operation == .patch
                ? JSON.object(base ?? [:]).applyingMergePatch(payload ?? .object([:])).objectValue
                : payload?.objectValue,
            urlID: operation == .create && route.method != .put ? nil : entityID, entityID: entityID,
            temporaryID: madeID,
            collectionPath: request.path, baseURL: store.baseURL, shape: shape, envelope: configuration.envelope,
            collectionEnvelope: configuration.collectionEnvelope)
        do {
            let object = try reading.object(of: response) { (try? decode(.object($0))) != nil }
            return .delivered(Answer(json: object, etag: response.header("etag")))
        } catch {
            var failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
            failure.message =
                "the server applied the write, but Depot cannot tell which entity it made: " + failure.message
            failure.status = response.status
            failure.responseBody = response.body
            failure.request = Self.summary(request)
            return .reject(failure)
        }
    }

    /// `GET` the entity as the server has it now; nil when the server has no such entity.
    func current(entityID: String, timeout: Duration? = nil) async throws -> Result<Answer?, DepotError> {
        let route = routes[.read]!
        var request: NetworkRequest
        do {
            request = try makeRequest(
                route.method, try route.checkedPath(id: entityID), template: route.path,
                headers: configuration.requestHeaders)
            request.timeoutCap = timeout
            request.account = account
        } catch {
            return .failure(error as? DepotError ?? DepotError(.encoding, "\(error)", underlying: error))
        }
        do {
            let response = try await TrafficMeter.send(request, through: store)
            let json = shape.object(
                try JSONMapping.unwrap(try JSON(parsing: response.body), envelope: configuration.envelope))
            guard let object = json.objectValue else {
                return .failure(DepotError(.decoding, "expected a JSON object, found \(json.kindName)"))
            }
            return .success(Answer(json: object, etag: response.header("etag")))
        } catch {
            let failure = Self.depotError(error, request)
            if failure.isCancellation { throw failure }
            if failure.code == .notFound { return .success(nil) }
            return .failure(failure)
        }
    }

    /// Sorts a failed send: transport trouble and 401/408/429/5xx retry, 409/412 are conflicts, a
    /// 404 to a delete means it is done, any other answer is a refusal.
    static func classify(_ error: DepotError, operation: OutboxOperation) -> Outcome {
        guard let status = error.status else {
            switch error.code {
            // Not sent: its account is not the one signed in. It waits, and is held until it is.
            case .transport, .timeout, .abandoned, .otherAccount: return .retry(error)
            default: return .reject(error)
            }
        }
        switch status {
        case 404 where operation == .delete: return .delivered(nil)
        case 409, 412: return .conflict(error)
        case 401, 408, 429, 500...599: return .retry(error)
        default: return .reject(error)
        }
    }

    /// The repository's headers with `extra` over them (names compared without regard to case).
    func headers(adding extra: [String: String]) -> [String: String] {
        let names = Set(extra.keys.map { $0.lowercased() })
        return configuration.requestHeaders.filter { !names.contains($0.key.lowercased()) }.merging(extra) { _, new in
            new
        }
    }

    static func depotError(_ error: any Error, _ request: NetworkRequest) -> DepotError {
        if var error = error as? DepotError {
            error.request = error.request ?? summary(request)
            return error
        }
        if error is CancellationError { return DepotError(.cancelled, "the request was cancelled", underlying: error) }
        return DepotError(.transport, "\(error)", request: summary(request), underlying: error)
    }

    static func summary(_ request: NetworkRequest) -> DepotError.Request {
        DepotError.Request(method: request.method.rawValue, url: request.path)
    }
}
