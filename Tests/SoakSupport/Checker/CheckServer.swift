import Depot
import DepotTesting
import Foundation

/// The model checker's server: a plain, obviously correct REST collection at `/items`, written for
/// the checker alone (no Depot code decides what it holds), on a ``StubServer`` route so the stub's
/// faults apply to it. Besides answering, it keeps the reference facts the checks read: every
/// write it applied (who sent it, under which key, whether it carried `If-Match`, whose version
/// it replaced), and the newest version of each object it ever showed the app.
///
/// What it serves follows the round's ``CheckServerShape``: ids the client's or its own
/// (`s1001`, echoing the client's under `client_id`), `ETag`s and `If-Match` (412 with the current
/// object), answers that vary by caller (`viewer`, `Vary: Authorization`, a tag per caller),
/// list summaries without `body`, `Cache-Control`, a batch route, and a `409` to a key whose first
/// request is still in flight (the IETF idempotency-key draft).
public final class CheckServer: Sendable {
    /// One object.
    public struct Object: Sendable, Equatable {
        /// Its id.
        public var id: String
        /// The app's (or another client's) value.
        public var value: String
        /// Bumped by every write, from one counter for the whole server.
        public var version: Int
        /// Who wrote this version: `app` or `other`.
        public var writer: String
        /// The id the client sent when it created it (the server's id policy may differ).
        public var clientID: String?
        /// Whether `value` goes out as a number (another client wrote what the app cannot read).
        public var corrupt = false
        /// The app's schema field as last written: `tag` (v1) or `label` (v2), and its value
        /// (rounds with ``CheckServerShape/migrates``).
        public var schemaField: SchemaField?
    }

    /// The app's schema field of an object: its name in the version that wrote it, and its value.
    public struct SchemaField: Sendable, Equatable {
        /// `tag` or `label`.
        public var key: String
        /// What was written.
        public var value: JSON
    }

    /// A write the server applied.
    public struct Applied: Sendable {
        /// `POST`, `PUT`, `PATCH`, `DELETE`, `BATCH`, or `OTHER` for another client's write.
        public var method: String
        /// The object's id.
        public var id: String
        /// The value written (nil for a delete).
        public var value: String?
        /// The account of the request (`A`, `B`), `other` for another client.
        public var account: String
        /// The request's `Idempotency-Key`.
        public var key: String?
        /// Whether the request carried `If-Match`.
        public var ifMatch: Bool
        /// A write without `If-Match` that replaced a version another client made after the newest
        /// version this server showed the app, though the app had been given an `ETag` for it.
        public var silentOverwrite: Bool
    }

    /// The state, under the lock.
    struct State {
        var objects: [String: Object] = [:]
        var order: [String] = []
        var applied: [Applied] = []
        var nextVersion = 1
        var nextID = 1001
        var keys: [String: (fingerprint: String, response: StubResponse, until: ContinuousClock.Instant)] = [:]
        /// Per object, the newest version any answer showed the app.
        var shown: [String: Int] = [:]
        /// Objects whose `ETag` the app was given in a single-object answer.
        var tagged: Set<String> = []
        /// A delay for the next write answer (the answer is held; its key stays in flight).
        var slowNext: Duration?
        var refusals: [(method: String, id: String, value: String?, status: Int)] = []
        /// The current token generation per account (rounds whose tokens expire).
        var tokens: [String: Int] = [:]
        /// 409s answered to a key whose first request was in flight.
        var inFlightConflicts = 0
        /// Deleted ids and the version of their deletion (rounds with incremental pulls).
        var tombstones: [String: Int] = [:]
        /// Accounts signed out (``CheckAction/logout(account:)``) and not signed in again.
        var signedOut: Set<String> = []
        /// Requests that carried a signed-out account's token.
        var afterLogout: [String] = []
        /// Token requests (`POST /token`) received.
        var tokenRequests = 0
        /// A delay for the next token answer (a refresh held while the app signs out).
        var slowNextToken: Duration?
        /// Whether the next answer trickles (``CheckFault/trickle``).
        var trickleNext = false
        /// The version counter when the last full pull's page (paged, no `updated_after`) was served.
        var fullPullVersion = 0
        /// Write bodies that carried both versions' schema field (`tag` and `label`).
        var mixedShapes: [String] = []
        /// Page requests whose query is not the link the server wrote (``CheckServerShape/linkPaging``).
        var mangledLinks: [String] = []
        /// List answers of ``CheckServerShape/silentPages`` that held at least one object.
        var silentPagesFilled = 0
        /// Requests to `/items` counted for ``CheckServerShape/longRetryAfter`` (every fifth is
        /// answered 503).
        var counted = 0
        /// Whether the round settles: no more 503s (the final checks run with no faults).
        var quiet = false
    }

    /// The shape of the round's server.
    public let shape: CheckServerShape
    let state = LockedValue(State())
    /// The other origin detail GETs are redirected to (``CheckServerShape/redirectsElsewhere``).
    let mirror: StubServer?

    /// A server of `shape`, serving `/items` on `stub`, and the same objects' details on `mirror`
    /// (another origin) to a signed `as=<account>` query.
    public init(shape: CheckServerShape, on stub: StubServer, mirror: StubServer? = nil) {
        self.shape = shape
        self.mirror = mirror
        mirror?.route(.get, "/items/:id") { [self] request, parameters in
            answer(request, id: parameters["id"].map(canonical), signed: request.query["as"] ?? "?")
        }
        stub.route(nil, "/items") { [self] request, _ in answer(request, id: nil) }
        stub.route(nil, "/items/:id") { [self] request, parameters in
            answer(request, id: parameters["id"].map { $0 == "collection" ? $0 : canonical($0) })
        }
        stub.route(.post, "/token") { [self] request, _ in
            let account = request.json?["account"]?.stringValue ?? "?"
            let (generation, delay) = state.withLock { state in
                state.tokenRequests += 1
                defer { state.slowNextToken = nil }
                return (state.tokens[account, default: 1], state.slowNextToken)
            }
            return .json(["token": .string("\(account)-\(generation)")], delay: delay)
        }
    }

    /// The objects, in creation order.
    public var objects: [Object] { state.withLock { state in state.order.compactMap { state.objects[$0] } } }
    /// The writes applied, in order.
    public var applied: [Applied] { state.withLock { $0.applied } }
    /// Writes refused with a 4xx (a conflict, a missing object): the app's write did not land, visibly.
    public var refusals: [(method: String, id: String, value: String?, status: Int)] {
        state.withLock { $0.refusals }
    }

    /// Write bodies (`POST /items {…}`) that carried both versions' schema field: neither
    /// version's shape.
    public var mixedShapes: [String] { state.withLock { $0.mixedShapes } }

    /// Page requests that did not ask the next link as the server wrote it (a form-encoded `+`
    /// sent back as `%2B` asks another query).
    public var mangledLinks: [String] { state.withLock { $0.mangledLinks } }
    /// How many list answers of ``CheckServerShape/silentPages`` held at least one object: a pull
    /// that read one cannot have read the whole list.
    public var silentPagesFilled: Int { state.withLock { $0.silentPagesFilled } }

    /// How many 409s answered a key whose first request was in flight.
    public var inFlightConflicts: Int { state.withLock { $0.inFlightConflicts } }

    /// The one spelling of an id the server keeps (lowercase in rounds with lowercase UUIDs).
    public func canonical(_ id: String) -> String { shape.lowercaseIDs ? id.lowercased() : id }

    /// Expires `account`'s token: requests with it are answered 401 until the app refreshes.
    public func expireToken(of account: String) { state.withLock { $0.tokens[account, default: 1] += 1 } }

    /// `account`'s current token (`A-2`).
    public func token(of account: String) -> String {
        state.withLock { "\(account)-\($0.tokens[account, default: 1])" }
    }

    /// Marks `account` signed out (true) or in again: while it is out, a request with its token
    /// is a violation (``afterLogout``).
    public func signedOut(_ account: String, _ out: Bool) {
        state.withLock { state in
            if out { state.signedOut.insert(account) } else { state.signedOut.remove(account) }
        }
    }

    /// Whether the object `id` was deleted before the last full pull's page was served: that pull
    /// told its deletion only by leaving it out (a pull that does not prune keeps the record, and
    /// no later incremental page tells it).
    public func deletedBeforeFullPull(_ id: String) -> Bool {
        state.withLock { state in state.tombstones[id].map { $0 < state.fullPullVersion } ?? false }
    }

    /// Requests that carried the token of an account signed out at the time.
    public var afterLogout: [String] { state.withLock { $0.afterLogout } }

    /// How many token requests came.
    public var tokenRequests: Int { state.withLock { $0.tokenRequests } }

    /// Holds the next token answer for `delay` (a refresh under way that long).
    public func slowNextToken(_ delay: Duration) { state.withLock { $0.slowNextToken = delay } }

    /// The round settles: no more 503s to every fifth request, and no fault a step armed for a
    /// request that never came (a slow or trickling answer, a slow token, armed before a read
    /// the store answered offline): the final flushes and pull meet a server with no faults.
    public func quiet() {
        state.withLock { state in
            state.quiet = true
            state.slowNext = nil
            state.trickleNext = false
            state.slowNextToken = nil
        }
    }

    /// Makes the next answer trickle: its status and headers at once, then one byte every 400 ms
    /// for 40 s (a write is applied first, and its key remembers the real answer).
    public func trickleNext() { state.withLock { $0.trickleNext = true } }

    /// Holds the answer of the next write for `delay` (its key stays in flight that long).
    public func slowNextWrite(_ delay: Duration) { state.withLock { $0.slowNext = delay } }

    /// Another client writes `value` (nil: deletes) to the object `id`, as a number the app cannot
    /// read when `corrupt`; false when there is no such object.
    @discardableResult
    public func otherWrite(id: String, value: String?, corrupt: Bool = false) -> Bool {
        state.withLock { state in
            guard var object = state.objects[id] else { return false }
            if let value {
                object.value = value
                object.version = state.nextVersion
                object.writer = "other"
                object.corrupt = corrupt
                state.nextVersion += 1
                state.objects[id] = object
            } else {
                state.objects[id] = nil
                state.order.removeAll { $0 == id }
                state.tombstones[id] = state.nextVersion
                state.nextVersion += 1
            }
            state.applied.append(
                Applied(
                    method: "OTHER", id: id, value: value, account: "other", key: nil, ifMatch: false,
                    silentOverwrite: false))
            return true
        }
    }

    /// When the last write whose answer is held (``CheckFault/slowAnswer``) is answered: until
    /// then its key is in flight, and a resend under it is answered 409 (rounds with
    /// ``CheckServerShape/conflictsInFlight``); nil when none is held.
    public var keysInFlightUntil: ContinuousClock.Instant? {
        state.withLock { state in state.keys.values.map(\.until).max().flatMap { $0 > .now ? $0 : nil } }
    }

    // MARK: Answering

    /// The answer to `request` for the object `id` (nil: the list); `signed` names the account of
    /// a request to the other origin (``mirror``), which carries no credential of its own.
    func answer(_ request: RecordedRequest, id: String?, signed: String? = nil) -> StubResponse {
        let token: String
        if let signed {
            token = shape.refreshesTokens ? "\(signed)-signed" : signed
        } else if shape.cookies {
            token = request.header("Cookie").map { String($0.dropFirst("session=".count)) } ?? "?"
        } else {
            token = request.header("Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? "?"
        }
        let account = shape.refreshesTokens ? String(token.prefix { $0 != "-" }) : token
        let key = request.header("Idempotency-Key")
        return state.withLock { state in
            if signed == nil, state.signedOut.contains(account) {
                state.afterLogout.append("\(request.method) \(request.path) as \(token)")
            }
            // A gateway in front of the server: every fifth request unavailable for a long while.
            if let seconds = shape.longRetryAfter, signed == nil, !state.quiet {
                state.counted += 1
                if state.counted % 5 == 0 {
                    return StubResponse(status: 503, headers: ["Retry-After": "\(seconds)"])
                }
            }
            if signed == nil, shape.refreshesTokens, token != "\(account)-\(state.tokens[account, default: 1])" {
                return Self.error(401, "token expired")
            }
            // The caller is known: its detail GET goes to the other origin, signed for it.
            if let mirror, signed == nil, request.method == "GET", let id, id != "collection" {
                return StubResponse(
                    status: 302, headers: ["Location": "\(mirror.url.absoluteString)\(request.rawPath)?as=\(account)"])
            }
            let fingerprint = "\(request.method) \(request.path)"
            let now = ContinuousClock.now
            if let key, request.method != "GET", let seen = state.keys[key] {
                if seen.fingerprint != fingerprint { return Self.error(422, "key reused for another request") }
                if shape.conflictsInFlight, now < seen.until {
                    state.inFlightConflicts += 1
                    return Self.error(409, "a request with this key is in flight")
                }
                return seen.response
            }
            var response: StubResponse
            switch (request.method, id) {
            case ("GET", nil): response = list(request, account: account, state: &state)
            case ("GET", let id?): response = read(id, request: request, account: account, state: &state)
            case ("POST", "collection"): response = batch(request, account: account, state: &state)
            case ("POST", nil): response = create(request, account: account, state: &state)
            case ("PUT", let id?), ("PATCH", let id?):
                response = write(id, request: request, account: account, state: &state)
            case ("DELETE", let id?): response = delete(id, request: request, account: account, state: &state)
            default: response = Self.error(405, "no \(request.method) here")
            }
            if request.method != "GET", let delay = state.slowNext {
                state.slowNext = nil
                response.delay = delay
            }
            if let key, request.method != "GET", (200..<300).contains(response.status) {
                var stored = response
                stored.delay = nil
                state.keys[key] = (fingerprint, stored, now + (response.delay ?? .zero))
            }
            if request.method != "GET", (400..<500).contains(response.status) {
                let value = request.json?.objectValue?["value"]?.stringValue
                state.refusals.append((request.method, id ?? "-", value, response.status))
            }
            if state.trickleNext {
                state.trickleNext = false
                var headers = response.headers
                headers[.contentLength] = nil
                response = .stream(
                    bytes: 100, chunkSize: 1, interval: .milliseconds(400), status: response.status, headers: headers)
            }
            return response
        }
    }

    /// The object as `account` sees it; `full` adds `body`.
    func representation(_ object: Object, account: String, full: Bool) -> JSONObject {
        var json: JSONObject = [
            "id": .string(object.id), "value": object.corrupt ? 12345 : .string(object.value), "kind": "item",
        ]
        // Another client's write cleared `body`: a server that leaves out null keys sends none.
        if full, !(shape.omitsNulls && object.writer == "other") { json["body"] = .string("b-" + object.value) }
        if shape.variesByCaller { json["viewer"] = .string(account) }
        if let clientID = object.clientID, shape.assignsIDs { json["client_id"] = .string(clientID) }
        if shape.incremental { json["updated_at"] = .integer(Int64(object.version)) }
        if let field = object.schemaField { json[field.key] = field.value }
        return json
    }

    func tag(_ object: Object, account: String) -> String {
        shape.variesByCaller ? "\"\(object.id)-\(object.version)-\(account)\"" : "\"\(object.id)-\(object.version)\""
    }

    /// A single object's answer, with its tag and caching headers; notes what the app was shown.
    func single(_ object: Object, status: Int, account: String, state: inout State) -> StubResponse {
        state.shown[object.id] = max(state.shown[object.id] ?? 0, object.version)
        var headers = cachingHeaders()
        if shape.servesETags {
            headers["ETag"] = tag(object, account: account)
            state.tagged.insert(object.id)
        }
        return .json(.object(representation(object, account: account, full: true)), status: status, headers: headers)
    }

    func cachingHeaders() -> [String: String] {
        var headers: [String: String] = [:]
        if let cacheControl = shape.cacheControl { headers["Cache-Control"] = cacheControl }
        if shape.variesByCaller { headers["Vary"] = shape.cookies ? "Cookie" : "Authorization" }
        if shape.hugeAge { headers["Age"] = "2147483648" }
        return headers
    }
}

/// A JSON error answer.
extension CheckServer {
    static func error(_ status: Int, _ message: String) -> StubResponse {
        .json(["error": .string(message)], status: status)
    }
}
