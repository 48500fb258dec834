import Foundation
import HTTPTypes
import Logging

/// The part every transport shares: merges headers, runs interceptors, refuses bad headers, builds
/// the URL, logs with secrets redacted, turns non-2xx answers into `DepotError`s and retries
/// as the ``RetryPolicy`` says. A transport supplies only the single attempt.
public struct RequestPipeline: Sendable {
    /// The base URL every request path is relative to.
    public let baseURL: URL
    /// The shared configuration.
    public let configuration: SessionConfiguration
    /// The parts of `baseURL` every request URL starts with, parsed once.
    let base: BaseURLParts

    /// The account the first interceptor that declares one puts on requests now
    /// (``RequestInterceptor/account``); nil for none.
    public var account: String? {
        for interceptor in configuration.interceptors {
            if let account = interceptor.account { return account }
        }
        return nil
    }

    /// Makes a pipeline; `headers` are merged over the configuration's own: each name in
    /// `headers` replaces every field of that name, repeated fields kept in order.
    public init(baseURL: URL, headers: HTTPFields = HTTPFields(), configuration: SessionConfiguration) {
        var configuration = configuration
        configuration.headers.override(with: headers)
        self.baseURL = baseURL
        self.configuration = configuration
        base = BaseURLParts(baseURL)
    }

    /// Makes a pipeline with headers given as a dictionary; a name or value with CR, LF or NUL
    /// makes every request fail with `DepotError` `.invalidRequest` before it is sent.
    public init(baseURL: URL, headers: [String: String], configuration: SessionConfiguration) {
        let (fields, rejected) = HTTPFields.checking(headers)
        var configuration = configuration
        configuration.rejectedHeaders += rejected
        self.init(baseURL: baseURL, headers: fields, configuration: configuration)
    }

    /// One attempt: send `request` to `url`, waiting at most `timeout`; return any answer, 2xx or
    /// not, and throw a `DepotError` (`.transport`, `.timeout`, `.cancelled`) when there is none.
    public typealias Attempt =
        @Sendable (_ request: NetworkRequest, _ url: URL, _ timeout: Duration) async throws -> NetworkResponse

    /// Sends `request` through the pipeline.
    public func send(_ request: NetworkRequest, attempt: Attempt) async throws -> NetworkResponse {
        let (prepared, url, summary): (NetworkRequest, URL, DepotError.Request)
        do {
            (prepared, url, summary) = try await prepare(request)
        } catch {
            throw Self.neverSent(error)
        }
        return try await run(request, prepared: prepared, url: url, summary: summary, from: 1, attempt: attempt)
    }

    /// Sends the prepared request, from attempt number `first`, until an answer, a failure that is
    /// not retried, or cancellation. `earlier` is the failure of the attempt before `first`.
    func run(
        _ request: NetworkRequest, prepared: NetworkRequest, url: URL, summary: DepotError.Request, from first: Int,
        earlier: DepotError? = nil, attempt: Attempt
    ) async throws -> NetworkResponse {
        var (prepared, url, summary) = (prepared, url, summary)
        let timeout = prepared.effectiveTimeout(session: configuration.timeout)
        var attemptNumber = first
        var reauthorized = false
        // An earlier attempt under an `Idempotency-Key` that got no answer and may have reached the
        // server: a 409 to a resend under that key says only that it is still being processed.
        var unanswered = earlier.flatMap { Self.mayBeInFlight($0, prepared) ? $0 : nil }
        // An earlier attempt that may have reached the server: attempts are facts, so the call's
        // failure never says "never sent", whatever its last attempt met.
        var reached = earlier.flatMap { $0.serverCannotHaveApplied ? nil : $0 }
        while true {
            if Task.isCancelled { throw DepotError(.cancelled, "the request was cancelled", request: summary) }
            let (sent, telemetry) = willAttempt(prepared, url: url, attempt: attemptNumber)
            let start = ContinuousClock.now
            let result: Result<NetworkResponse, any Error>
            do {
                result = .success(try await attempt(sent, url, timeout))
            } catch {
                result = .failure(error)
            }
            var failure: DepotError
            switch outcome(of: result, request: sent, summary: summary, since: start, telemetry: telemetry) {
            case .success(let response): return response
            case .failure(let error): failure = error
            }
            if let earlier = unanswered, failure.status == 409 {
                failure = Self.keyInFlight(earlier, answer: failure)
            } else if Self.mayBeInFlight(failure, sent) {
                unanswered = failure
            }
            if failure.status == 401, !reauthorized {
                reauthorized = true
                if await reauthorize(prepared, failure) {
                    do {
                        (prepared, url, summary) = try await prepare(request)
                    } catch let refused as DepotError {
                        // Not sent again (a failed refresh; another account signed in meanwhile):
                        // this attempt never left, and the 401 before it was not applied, so the
                        // call may have been applied only by an attempt before that (`reached`).
                        throw Self.failure(Self.neverSent(refused), after: reached)
                    }
                    continue
                }
            }
            guard let delay = retryPause(after: attemptNumber, of: prepared, failure: &failure, timeout: timeout)
            else { throw Self.failure(failure, after: reached) }
            if reached == nil, !failure.serverCannotHaveApplied { reached = failure }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw DepotError(.cancelled, "the request was cancelled while waiting to retry", request: summary)
            }
            attemptNumber += 1
        }
    }

    /// The pause before the attempt after attempt number `attempt` of `request`, which met
    /// `failure`; nil when no retry is scheduled: the ``RetryPolicy`` makes none, or the pause
    /// would outlast `timeout`, the request's timeout (then `failure`'s message says so). No pause
    /// outlasts it, on any road: it is the longest the caller agreed to wait for an answer, so a
    /// retry that asks more (a `Retry-After: 30` on a 2 s request) is not scheduled, and the call
    /// ends now with what the last attempt met (a remote-first read then falls back at once).
    func retryPause(
        after attempt: Int, of request: NetworkRequest, failure: inout DepotError, timeout: Duration
    ) -> Duration? {
        guard let delay = configuration.retryPolicy.delay(after: attempt, request: request, error: failure)
        else { return nil }
        guard delay < timeout else {
            failure.message += "; no retry: waiting \(delay) would pass the request's \(timeout) timeout"
            return nil
        }
        return delay
    }

    /// `error`, met preparing a request before its first attempt (an interceptor that could not
    /// adapt it: a failed refresh, no credential; a header it refused): the request never left,
    /// a fact recorded as a ``RequestNotSent`` under the error, so an outbox entry counts no
    /// attempt. A cancellation and a refusal for another account keep their own facts.
    static func neverSent(_ error: any Error) -> any Error {
        guard let failure = error as? DepotError else { return error }
        return neverSent(failure)
    }

    /// ``neverSent(_:)`` for a `DepotError`.
    static func neverSent(_ error: DepotError) -> DepotError {
        guard !error.isCancellation, error.code != .otherAccount, !(error.underlying is RequestNotSent) else {
            return error
        }
        var failure = error
        failure.underlying = RequestNotSent(cause: error.underlying ?? error)
        return failure
    }

    /// The call's failure: the last attempt's, unless that one never reached the server (a failed
    /// name lookup) while an earlier attempt may have (`earlier`): then it is kept as what went
    /// wrong last, under an error that no longer says "never sent" (see
    /// ``DepotError/serverCannotHaveApplied``), so an outbox entry keeps the attempt counted.
    static func failure(_ last: DepotError, after earlier: DepotError?) -> DepotError {
        guard let earlier, last.serverCannotHaveApplied else { return last }
        var failure = last
        failure.message += "; an earlier attempt may have reached the server (\(earlier.message))"
        failure.underlying = AttemptedEarlier(last: last.underlying, earlier: earlier)
        return failure
    }

    /// Whether `failure` of an attempt of `request` leaves its `Idempotency-Key` possibly in
    /// flight at the server: no answer came, and the request may have reached it.
    static func mayBeInFlight(_ failure: DepotError, _ request: NetworkRequest) -> Bool {
        failure.status == nil && !failure.neverReachedServer && !failure.isCancellation
            && request.header("Idempotency-Key") != nil
    }

    /// The failure of a resend answered 409 after an earlier attempt under the same
    /// `Idempotency-Key` got no answer (`earlier`): the server is still processing that first
    /// request (the IETF idempotency-key draft, Stripe), so the outcome is still the earlier one's,
    /// unknown, and never a conflict. Retried as that failure is, and a write that falls back
    /// keeps its key, so a later resend gets the first request's answer.
    static func keyInFlight(_ earlier: DepotError, answer: DepotError) -> DepotError {
        var failure = earlier
        failure.message +=
            "; a resend under the same Idempotency-Key was answered \(answer.status ?? 409): the first request is still being processed"
        failure.underlying = answer
        return failure
    }

    /// Starts the attempt's telemetry (its trace context goes into the returned request's
    /// headers), calls the request hook and logs the attempt.
    func willAttempt(_ request: NetworkRequest, url: URL, attempt: Int) -> (NetworkRequest, RequestTelemetry?) {
        let (request, telemetry) = RequestTelemetry.start(
            request, url: url, attempt: attempt, configuration: configuration)
        configuration.onRequest?(request, url)
        log(request, url: url, attempt: attempt)
        return (request, telemetry)
    }

    /// The answer of an attempt that began at `start`, as the caller sees it: a 2xx answer, or the
    /// `DepotError` for a non-2xx answer or a failure; the response hook has seen it and it was logged.
    func outcome(
        of result: Result<NetworkResponse, any Error>, request: NetworkRequest, summary: DepotError.Request,
        since start: ContinuousClock.Instant, telemetry: RequestTelemetry? = nil
    ) -> Result<NetworkResponse, DepotError> {
        let failure: DepotError
        switch result {
        case .success(var response):
            // The answer names the headers it was asked with: the attempt's, with what the
            // transport added to them when it said.
            response.sentHeaders = Self.sent(request.headers, adding: response.sentHeaders)
            let elapsed = ContinuousClock.now - start
            // A 304 to a conditional GET is the answer its validators asked for: the stored copy
            // is current (HTTP cache in the store). Counted as 3xx, never an error.
            if response.isSuccess || (response.status == 304 && request.isConditional) {
                telemetry?.end(status: response.status, error: nil)
                configuration.onResponse?(request, .success(response), elapsed)
                configuration.logger.debug(
                    "\(summary) → \(response.status) (\(response.body.count) bytes)",
                    metadata: ["headers": .string(Self.redacted(response.headers).description)]
                )
                return .success(response)
            }
            failure = statusError(for: response, request: summary)
            telemetry?.end(status: response.status, error: failure)
            configuration.onResponse?(request, .failure(failure), elapsed)
        case .failure(let error):
            failure = Self.depotError(error, request: summary)
            telemetry?.end(status: nil, error: failure)
            configuration.onResponse?(request, .failure(failure), ContinuousClock.now - start)
        }
        configuration.logger.warning("\(failure)")
        return .failure(failure)
    }

    /// `request` as it goes out: the configuration's headers merged and every interceptor's
    /// `adapt` run (so an `Authorization` an interceptor adds is there). What an HTTP cache in the
    /// store compares against the request headers an answer `Vary`s on.
    ///
    /// - Throws: what an interceptor throws.
    public func prepared(_ request: NetworkRequest) async throws -> NetworkRequest {
        var prepared = mergingHeaders(request)
        for interceptor in configuration.interceptors {
            prepared = try await interceptor.adapt(prepared)
        }
        return prepared
    }

    /// Merges the headers, runs the interceptors, builds the URL and checks the headers.
    private func prepare(_ request: NetworkRequest) async throws -> (NetworkRequest, URL, DepotError.Request) {
        var prepared = mergingHeaders(request)
        for interceptor in configuration.interceptors {
            prepared = try await interceptor.adapt(prepared)
        }
        return try finishPreparing(prepared)
    }

    /// ``prepare(_:)`` for a pipeline without interceptors: nothing to wait for.
    func prepareWithoutInterceptors(_ request: NetworkRequest) throws -> (NetworkRequest, URL, DepotError.Request) {
        try finishPreparing(mergingHeaders(request))
    }

    /// `request` with the configuration's headers it lacks and the refused names.
    private func mergingHeaders(_ request: NetworkRequest) -> NetworkRequest {
        var prepared = request
        if !configuration.headers.isEmpty { prepared.headers.addMissing(from: configuration.headers) }
        if !configuration.rejectedHeaders.isEmpty { prepared.rejectedHeaders += configuration.rejectedHeaders }
        return prepared
    }

    /// Builds the URL and checks the headers of an adapted request.
    private func finishPreparing(_ prepared: NetworkRequest) throws -> (NetworkRequest, URL, DepotError.Request) {
        let url = try prepared.url(relativeTo: base)
        let summary = DepotError.Request(method: prepared.method.rawValue, url: url.absoluteString)
        do {
            try prepared.validateHeaders()
        } catch var error as DepotError {
            error.request = summary
            throw error
        }
        return (prepared, url, summary)
    }

    /// Asks every interceptor about a 401; true when one refreshed its credentials.
    private func reauthorize(_ request: NetworkRequest, _ error: DepotError) async -> Bool {
        var retry = false
        for interceptor in configuration.interceptors
        where await interceptor.shouldRetryUnauthorized(request, error: error) {
            retry = true
        }
        return retry
    }

    private func log(_ request: NetworkRequest, url: URL, attempt: Int) {
        configuration.logger.debug(
            "\(request.method) \(url.absoluteString)\(attempt > 1 ? " (attempt \(attempt))" : "")",
            metadata: [
                "headers": .string(Self.redacted(request.headers).description),
                "bytes": .stringConvertible(request.body?.count ?? 0),
            ]
        )
    }

    /// The header fields an attempt went out with: `request`'s, and the fields a transport says
    /// it added (`added`, a name there replacing the request's fields of that name).
    static func sent(_ request: HTTPFields, adding added: HTTPFields?) -> HTTPFields {
        guard let added, !added.isEmpty else { return request }
        var fields = request
        fields.override(with: added)
        return fields
    }

    /// Header names whose values never reach a log.
    public static let redactedHeaders: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// `headers` in order, repeated fields kept, with the value of every secret field (each
    /// `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization`) replaced by `<redacted>`.
    public static func redacted(_ headers: HTTPFields) -> [(String, String)] {
        headers.map { ($0.name.rawName, redactedHeaders.contains($0.name.canonicalName) ? "<redacted>" : $0.value) }
    }

    /// Wraps any error in a `DepotError` that names the request.
    static func depotError(_ error: any Error, request: DepotError.Request) -> DepotError {
        if var error = error as? DepotError {
            if error.request == nil { error.request = request }
            return error
        }
        if error is CancellationError {
            return DepotError(.cancelled, "the request was cancelled", request: request, underlying: error)
        }
        return DepotError(.transport, "\(error)", request: request, underlying: error)
    }
}
