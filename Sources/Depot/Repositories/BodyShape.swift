import Foundation

/// The shape of a repository's bodies: the one place a write body is built (every road calls
/// ``write(_:_:id:format:base:)``: direct creates, updates and patches, dictionary creates, the
/// outbox's sends and conflict re-sends, the batch and bulk pushes) and the one place an answer's
/// object is read back into the plain object an entity decodes from.
struct BodyShape: Sendable {
    /// The key every write body is wrapped in (``RepositoryConfiguration/requestEnvelope``).
    var requestEnvelope: String?
    /// The JSON:API resource, when bodies are JSON:API documents.
    var resource: JSONAPIResource?
    /// The `Content-Type` the repository's own headers name, which wins over a format's.
    var contentType: String?
    /// Whether the entity's id is an integer (a JSON:API id, always a string, is read as one).
    var integerIDs = false
    /// The keys left out of every write body (``RepositoryConfiguration/serverOwnedKeys``).
    var serverOwnedKeys: Set<String> = []
    /// How `Codable` entities spell dates and keys (``RepositoryConfiguration/coding``).
    var coding = EntityCoding.default
    /// How a create's or an update's `null` members go (``RepositoryConfiguration/nilEncoding``).
    var nilEncoding = NilEncoding.null

    /// Plain objects, sent bare.
    static let plain = BodyShape()

    init() {}

    /// The shape `configuration` asks for, for entities of type `entity`.
    init<Entity: Identifiable>(_ configuration: RepositoryConfiguration, entity: Entity.Type) {
        requestEnvelope = configuration.requestEnvelope
        resource = configuration.jsonAPIResource
        contentType = configuration.headers.first { $0.key.lowercased() == "content-type" }?.value
        integerIDs = Entity.ID.self is any FixedWidthInteger.Type
        serverOwnedKeys = configuration.serverOwnedKeys
        coding = configuration.coding
        nilEncoding = configuration.nilEncoding
    }

    /// Whether answers are read as they come (no resource documents to unpack).
    var readsPlain: Bool { resource == nil }

    /// The body of a write and the `Content-Type` it goes out with (nil: `application/json`, or the
    /// repository's own).
    ///
    /// - Parameters:
    ///   - operation: `.create`, `.update`, `.patch` or `.synchronize` (a batch: `payload` is the
    ///     array of objects).
    ///   - payload: the entity's object; for `.patch` the RFC 7396 merge patch of the change.
    ///   - id: the entity's id as the path spells it (nil for a create without one, or a batch).
    ///   - format: the PATCH format (`.patch` only).
    ///   - base: the server's last object (`.patch` only), for the formats that need it.
    ///   - temporaryID: on a create, the entity's id when the store recorded it as one Depot made
    ///     (a ``TemporaryID``): left out of the body and the document.
    ///
    /// The server's keys (``RepositoryConfiguration/serverOwnedKeys``) are left out of an object or
    /// a merge patch, a create's or an update's `null` members are left out when the repository's
    /// ``RepositoryConfiguration/nilEncoding`` is `.omit`, and a create never sends an id Depot
    /// made; an id the app gave goes as it is. A batch's objects come as the push made them (it
    /// keeps the key its reply is matched by).
    func write(
        _ operation: RepositoryOperation, _ payload: JSON, id: String?, format: PatchFormat? = nil, base: JSON? = nil,
        temporaryID: String? = nil
    ) -> (body: JSON, contentType: String?) {
        var (payload, id) = (payload, id)
        let temporaryID = operation == .create ? temporaryID : nil
        if operation != .synchronize, case .object(let object) = payload {
            var body = RepositoryConfiguration.writeBody(
                object, serverOwnedKeys: serverOwnedKeys, creating: operation == .create, temporaryID: temporaryID)
            // A create or an update is the whole object: its nil members go as the repository says
            // (a folded write keeps a cleared member as `null` until here).
            if nilEncoding == .omit, operation == .create || operation == .update {
                body = body.filter { $0.value != .null }
            }
            payload = .object(body)
        }
        if let temporaryID, id == temporaryID { id = nil }
        if let resource {
            let body: JSON
            switch operation {
            case .synchronize:
                body = ["data": .array((payload.arrayValue ?? []).map { document(of: $0, id: nil, resource, .create) })]
            case .patch:
                // JSON:API PATCH replaces each attribute sent: a partial object, nested members whole.
                body = ["data": document(of: PatchFormat.json.body(for: payload, base: base), id: id, resource, .patch)]
            default:
                body = ["data": document(of: payload, id: id, resource, operation)]
            }
            return (body, contentType ?? JSONAPIResource.mediaType)
        }
        var body = payload
        if operation == .patch, let format { body = format.body(for: payload, base: base) }
        if let requestEnvelope, !(operation == .patch && format == .jsonPatch) {
            body = .object([requestEnvelope: body])
        }
        return (body, contentType ?? (operation == .patch ? format?.mediaType : nil))
    }

    /// One resource object of a document: `type`, `id` (a string), `attributes` and, when the
    /// object has them, `relationships`.
    private func document(
        of object: JSON, id: String?, _ resource: JSONAPIResource, _ operation: RepositoryOperation
    ) -> JSON {
        var attributes = object.objectValue ?? [:]
        let objectID = attributes.removeValue(forKey: "id")
        let relationships = attributes.removeValue(forKey: "relationships")
        var document: JSONObject = ["type": .string(resource.type), "attributes": .object(attributes)]
        let sendsID = operation != .create || resource.clientGeneratedIDs
        if sendsID, let text = id ?? objectID.flatMap(MovedIDs.idText) { document["id"] = .string(text) }
        if let relationships, relationships != .null { document["relationships"] = relationships }
        return .object(document)
    }

    /// An answer's object (already out of its envelope) as the plain object the entity reads.
    func object(_ json: JSON) -> JSON {
        guard resource != nil, case .object(let document) = json else { return json }
        guard document["attributes"] != nil || document["type"] != nil else { return json }
        var object = document["attributes"]?.objectValue ?? [:]
        if let id = document["id"] {
            if integerIDs, case .string(let text) = id, let number = Int64(text), String(number) == text {
                object["id"] = .integer(number)
            } else {
                object["id"] = id
            }
        }
        if let relationships = document["relationships"] { object["relationships"] = relationships }
        return .object(object)
    }

    /// A list answer's items, each read by ``object(_:)``.
    func items(_ elements: [JSON]) -> [JSON] {
        resource == nil ? elements : elements.map(object)
    }
}

extension RepositoryOperation {
    /// The repository operation an outbox entry's operation sends.
    init(_ operation: OutboxOperation) {
        switch operation {
        case .create: self = .create
        case .update: self = .update
        case .patch: self = .patch
        case .delete: self = .delete
        }
    }
}
