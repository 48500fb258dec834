import Foundation

/// What the server answered for one entity: the entity, the server's JSON for it as it came
/// (after envelope unwrapping, fields the entity does not model included) and the answer's `ETag`.
struct RemoteAnswer<Entity: Sendable>: Sendable {
    /// The entity read from the answer.
    var entity: Entity
    /// The server's JSON for the entity; nil when it was not kept or there was none.
    var json: JSON?
    /// The answer's `ETag`; nil for none (list answers carry none per item).
    var etag: String?
    /// What the answer does to the store's HTTP cache; nil: nothing.
    var caching: AnswerCaching?

    init(entity: Entity, json: JSON? = nil, etag: String? = nil, caching: AnswerCaching? = nil) {
        self.entity = entity
        self.json = json
        self.etag = etag
        self.caching = caching
    }
}

/// The calls behind the public CRUD methods: each reads the server's raw JSON and `ETag` when
/// `keepJSON` is set or a ``NetworkingRepository/snapshotCache`` is there, and refreshes that cache.
extension CRUDNetworkingRepository {
    /// Whether answers are read as raw JSON too.
    private func keepsJSON(_ keepJSON: Bool) -> Bool { keepJSON || snapshotCache != nil }

    /// `POST /path` with `body` (or `PUT /path/:id` under ``RepositoryConfiguration/createMethod``),
    /// under `idempotencyKey` (a new key when nil).
    func createAnswer(
        body: JSONObject, keepJSON: Bool = false, idempotencyKey: String? = nil, temporaryID: String? = nil
    ) -> Promise<RemoteAnswer<Entity>> {
        createAnswer(body: body, keepJSON: keepJSON, idempotencyKey: idempotencyKey, temporaryID: temporaryID) { $0 }
    }

    /// `POST /path` with `body`, the answer passed through `output` where it was read (no extra
    /// step, so no extra hop to a queue).
    ///
    /// The request carries `Idempotency-Key`: `idempotencyKey`, or a key made now, before the first
    /// send, so a retry (``RetryPolicy``) or a replay of the same write is applied once by a server
    /// that honours keys. Under ``RepositoryConfiguration/createMethod`` `.put` the write is
    /// `PUT /path/:id` with the id `body` holds, and an empty answer stands for `body`. The body
    /// goes out without the server's keys, nor `temporaryID`: the id Depot made for the entity, as
    /// the store recorded it (an id the app gave goes as it is).
    func createAnswer<Output: Sendable>(
        body: JSONObject, keepJSON: Bool = false, idempotencyKey: String? = nil, temporaryID: String? = nil,
        _ output: @escaping @Sendable (RemoteAnswer<Entity>) -> Output
    ) -> Promise<Output> {
        let keep = keepsJSON(keepJSON)
        let configuration = configuration
        var headers = ["Idempotency-Key": idempotencyKey ?? UUID.randomV4().uuidString]
        let id = configuration.createMethod == .put ? body["id"].flatMap(Self.pathComponent(of:)) : nil
        if configuration.createMethod == .put, id == nil {
            return Promise(
                error: DepotError(
                    .invalidRequest, "createMethod .put needs the id in the body: \(path) has a create without one"))
        }
        let written = BodyShape(configuration, entity: Entity.self).write(
            .create, .object(body), id: id, temporaryID: temporaryID)
        if let contentType = written.contentType { headers["Content-Type"] = contentType }
        let reading = WriteAnswerReading(
            operation: .create, sent: body, urlID: id, entityID: MovedIDs.idText(body["id"]),
            temporaryID: temporaryID != nil,
            collectionPath: route(for: .create, configuration: configuration).path, baseURL: store.baseURL,
            shape: BodyShape(configuration, entity: Entity.self), envelope: configuration.envelope,
            collectionEnvelope: configuration.collectionEnvelope)
        return send(.create, id: id, headers: headers, body: written.body) { response in
            output(try remembering(decodeWriteAnswer(response, reading, keepJSON: keep)))
        }
    }

    /// The text of a JSON id (a string, or an integer's digits) as a path component; nil otherwise.
    static func pathComponent(of id: JSON) -> String? {
        switch id {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    /// `GET /path/:id`.
    func readAnswer(id: String, keepJSON: Bool = false) -> Promise<RemoteAnswer<Entity>> {
        readAnswer(id: id, keepJSON: keepJSON) { $0 }
    }

    /// `GET /path/:id`, the answer passed through `output` where it was read.
    func readAnswer<Output: Sendable>(
        id: String, keepJSON: Bool = false, _ output: @escaping @Sendable (RemoteAnswer<Entity>) -> Output
    ) -> Promise<Output> {
        let keep = keepsJSON(keepJSON)
        return send(.read, id: id, body: nil) { response in
            output(try remembering(decodeAnswer(response, keepJSON: keep)))
        }
    }

    /// `GET /path?…`; list answers carry no `ETag` per item.
    func readAllAnswers(queryItems: [URLQueryItem], keepJSON: Bool = false) -> Promise<[RemoteAnswer<Entity>]> {
        readAllAnswers(queryItems: queryItems, keepJSON: keepJSON) { $0 }
    }

    /// `GET /path?…`, the answers passed through `output` where they were read.
    func readAllAnswers<Output: Sendable>(
        queryItems: [URLQueryItem], keepJSON: Bool = false,
        _ output: @escaping @Sendable ([RemoteAnswer<Entity>]) -> Output
    ) -> Promise<Output> {
        let keep = keepsJSON(keepJSON)
        return send(.readAll, id: nil, query: queryItems, body: nil) { response in
            output(try readAnswers(response, keepJSON: keep))
        }
    }

    /// The answers of a list answer, unwrapped from the collection envelope; kept in the snapshot
    /// cache with their JSON when `keepJSON` is set.
    func readAnswers(_ response: NetworkResponse, keepJSON keep: Bool) throws -> [RemoteAnswer<Entity>] {
        let configuration = configuration
        let envelope = configuration.collectionEnvelope
        let shape = BodyShape(configuration, entity: Entity.self)
        guard keep || !shape.readsPlain else {
            return try JSONMapping.entities(
                Entity.self, from: response.body, envelope: envelope, coding: configuration.coding
            ).map {
                RemoteAnswer(entity: $0)
            }
        }
        let json = try JSONMapping.unwrap(JSON(parsing: response.body), envelope: envelope)
        guard let array = json.arrayValue else {
            throw DepotError(.decoding, "expected an array of \(Entity.self), found \(json.kindName)")
        }
        return try shape.items(array).enumerated().map { index, element in
            do {
                let answer = RemoteAnswer(
                    entity: try JSONMapping.entity(Entity.self, from: element, coding: configuration.coding),
                    json: element)
                snapshotCache?.rememberListCopy(element, for: answer.entity.id.pathComponent)
                return answer
            } catch var error as DepotError {
                error.message = "[\(index)]: " + error.message
                throw error
            }
        }
    }

    /// `PUT /path/:id` with the whole entity; an empty answer (204) stands for the object sent.
    func updateAnswer(
        _ entity: Entity, ifMatch: String?, keepJSON: Bool = false, idempotencyKey: String? = nil, base: JSON? = nil
    ) -> Promise<RemoteAnswer<Entity>> {
        updateAnswer(entity, ifMatch: ifMatch, keepJSON: keepJSON, idempotencyKey: idempotencyKey, base: base) { $0 }
    }

    /// `PUT /path/:id`, the answer passed through `output` where it was read; under
    /// `idempotencyKey` (a new key when nil), so a replay after a lost answer is applied once.
    /// `base` is the server's copy the change was made against (for a 428, see
    /// ``send(_:id:query:headers:body:base:onFailure:read:)``).
    func updateAnswer<Output: Sendable>(
        _ entity: Entity, ifMatch: String?, keepJSON: Bool = false, idempotencyKey: String? = nil, base: JSON? = nil,
        _ output: @escaping @Sendable (RemoteAnswer<Entity>) -> Output
    ) -> Promise<Output> {
        let body: JSONObject
        do {
            body = try encoded(entity)
        } catch {
            return Promise(error: error)
        }
        let keep = keepsJSON(keepJSON)
        var headers = ["Idempotency-Key": idempotencyKey ?? UUID.randomV4().uuidString]
        if let ifMatch { headers["If-Match"] = ifMatch }
        let id = entity.id.pathComponent
        let written = BodyShape(configuration, entity: Entity.self).write(.update, .object(body), id: id)
        if let contentType = written.contentType { headers["Content-Type"] = contentType }
        let reading = WriteAnswerReading(
            operation: .update, sent: body, urlID: id, shape: BodyShape(configuration, entity: Entity.self),
            envelope: configuration.envelope,
            collectionEnvelope: configuration.collectionEnvelope)
        return send(.update, id: id, headers: headers, body: written.body, base: base) { response in
            guard response.body.isEmpty else {
                return output(try remembering(decodeWriteAnswer(response, reading, keepJSON: keep)))
            }
            let json: JSON? = keep ? .object(body) : nil
            return output(remembering(RemoteAnswer(entity: entity, json: json, etag: response.header("etag"))))
        }
    }

    /// `PATCH /path/:id` with the RFC 7396 merge patch `patch`, under `idempotencyKey` (a new key,
    /// made before the first send, when nil).
    ///
    /// An empty answer (204) stands for `base` (the server's last JSON, or an empty object when
    /// `sent` is known) with the patch applied; with neither `base` nor `sent` the answer is nil.
    func patchAnswer(
        id: String, patch: JSON, base: JSON?, sent: Entity?, ifMatch: String?, keepJSON: Bool = false,
        idempotencyKey: String? = nil
    ) -> Promise<RemoteAnswer<Entity>?> {
        let configuration = configuration
        let configured = configuration.patchFormat
        let route = route(for: .patch, configuration: configuration)
        let memory = store.routeMemory
        let format = memory?.patchFormat(for: route, configured: configured) ?? configured
        let key = idempotencyKey ?? UUID.randomV4().uuidString
        let first = patchAnswer(
            id: id, patch: patch, base: base, sent: sent, ifMatch: ifMatch, keepJSON: keepJSON, idempotencyKey: key,
            format: format)
        return first.recover { error in
            // A 415: the server did not act, so the same write goes again in the format it reads.
            guard let depotError = error as? DepotError,
                let next = PatchFormat.negotiated(after: depotError, sentAs: format)
            else { throw error }
            memory?.remember(next, for: route, configured: configured, after: format)
            return patchAnswer(
                id: id, patch: patch, base: base, sent: sent, ifMatch: ifMatch, keepJSON: keepJSON,
                idempotencyKey: key, format: next)
        }
    }

    private func patchAnswer(
        id: String, patch: JSON, base: JSON?, sent: Entity?, ifMatch: String?, keepJSON: Bool,
        idempotencyKey: String, format: PatchFormat
    ) -> Promise<RemoteAnswer<Entity>?> {
        let keep = keepsJSON(keepJSON)
        let written = BodyShape(configuration, entity: Entity.self).write(
            .patch, patch, id: id, format: format, base: base)
        var headers = ["Content-Type": written.contentType ?? format.mediaType, "Idempotency-Key": idempotencyKey]
        if let ifMatch { headers["If-Match"] = ifMatch }
        // An answer without the id (or not the whole entity) stands for the entity sent, else the
        // server's last copy with the patch applied.
        let sentObject = sent.flatMap { try? JSONMapping.object($0, coding: configuration.coding) }
        let reading = WriteAnswerReading(
            operation: .patch, sent: sentObject ?? (base ?? .object([:])).applyingMergePatch(patch).objectValue,
            urlID: id, shape: BodyShape(configuration, entity: Entity.self), envelope: configuration.envelope,
            collectionEnvelope: configuration.collectionEnvelope)
        return send(.patch, id: id, headers: headers, body: written.body, base: base) { response in
            guard response.body.isEmpty else {
                return try remembering(decodeWriteAnswer(response, reading, keepJSON: keep))
            }
            let etag = response.header("etag")
            if let sent {
                let json = (base ?? .object([:])).applyingMergePatch(patch)
                return remembering(RemoteAnswer(entity: sent, json: json, etag: etag))
            }
            guard let base else { return nil }
            let json = base.applyingMergePatch(patch)
            return try remembering(
                RemoteAnswer(
                    entity: JSONMapping.entity(Entity.self, from: json, coding: configuration.coding), json: json,
                    etag: etag))
        }
    }

    /// `DELETE /path/:id` under `idempotencyKey` (a new key when nil); forgets the entity's
    /// snapshot once the server has deleted it, or says (404) it has no such entity.
    func deleteAnswer(id: String, ifMatch: String?, idempotencyKey: String? = nil, base: JSON? = nil) -> Promise<Void> {
        var headers = ["Idempotency-Key": idempotencyKey ?? UUID.randomV4().uuidString]
        if let ifMatch { headers["If-Match"] = ifMatch }
        let cache = snapshotCache
        return send(
            .delete, id: id, headers: headers, body: nil, base: base,
            onFailure: { error in
                if (error as? DepotError)?.code == .notFound { cache?.forget(id) }
            },
            read: { _ in cache?.forget(id) }
        )
    }

    /// Reads the entity of a single-object answer, with its raw JSON when `keepJSON` is set.
    func decodeAnswer(_ response: NetworkResponse, keepJSON: Bool) throws -> RemoteAnswer<Entity> {
        let etag = response.header("etag")
        let configuration = configuration
        let shape = BodyShape(configuration, entity: Entity.self)
        guard keepJSON || !shape.readsPlain else {
            let entity = try JSONMapping.entity(
                Entity.self, from: response.body, envelope: configuration.envelope, coding: configuration.coding)
            return RemoteAnswer(entity: entity, etag: etag)
        }
        let json = shape.object(try JSONMapping.unwrap(JSON(parsing: response.body), envelope: configuration.envelope))
        return RemoteAnswer(
            entity: try JSONMapping.entity(Entity.self, from: json, coding: configuration.coding), json: json,
            etag: etag)
    }

    /// Reads a write's answer in any of the shapes servers give it (see ``WriteAnswerReading``), with its
    /// object as its JSON when `keepJSON` is set.
    func decodeWriteAnswer(_ response: NetworkResponse, _ reading: WriteAnswerReading, keepJSON: Bool) throws
        -> RemoteAnswer<Entity>
    {
        let coding = configuration.coding
        let object = try reading.object(of: response) {
            (try? JSONMapping.entity(Entity.self, from: .object($0), coding: coding)) != nil
        }
        return RemoteAnswer(
            entity: try JSONMapping.entity(Entity.self, from: .object(object), coding: coding),
            json: keepJSON ? .object(object) : nil, etag: response.header("etag"))
    }

    /// Keeps `answer` in the snapshot cache, if there is one and the answer has JSON.
    func remembering(_ answer: RemoteAnswer<Entity>) -> RemoteAnswer<Entity> {
        if let cache = snapshotCache, let json = answer.json {
            cache.remember(json, etag: answer.etag, for: answer.entity.id.pathComponent)
        }
        return answer
    }
}
