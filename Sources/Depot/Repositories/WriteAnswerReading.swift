import Foundation

/// Reads a successful write's answer in every shape servers give it, into the one object the
/// write stands for: the entity (`{"id": 1, "title": …}`), the id alone (`{"id": 1}`,
/// `[{"id": 1}]`), a row without its id (a PATCH answered `200 {"title": …}`), or nothing at all
/// (`201` with `Location: /api/v1/note/1/`, `202`, `204`).
///
/// An answer that reads as the entity and holds every key the write sent is taken as it is. Any
/// other is laid over what the write sent (for a PATCH, the server's last copy with the patch
/// applied); a body that is not JSON, or neither an object nor an array of one, counts as none: the
/// status says the server applied the write. The id comes from, in this order: the answer, the
/// created entity's `Location` (a URL one segment below the collection's, same origin), the
/// write's own URL (an update, a PATCH, a create by `PUT`), or the id a create's body carried
/// (never a ``TemporaryID`` nor a server-owned `id`: those are left out of the body). When none
/// gives it, a create's answer is ``DepotError/Code/serverIDUnknown``: the server applied the
/// write, and Depot cannot tell which entity it made.
struct WriteAnswerReading {
    /// The write: `.create`, `.update` or `.patch`.
    var operation: RepositoryOperation
    /// What the write stands for on the client: the object sent, or for a PATCH the server's last
    /// copy with the patch applied; nil when not known.
    var sent: JSONObject?
    /// The id the request's URL named; nil for a create by `POST`.
    var urlID: String?
    /// The entity's id on the client, for a create by `POST`.
    var entityID: String?
    /// Whether ``entityID`` is one Depot made (the store's record of it): never sent, so never the
    /// id the server gave.
    var temporaryID = false
    /// The path of the collection the entity was created in (the `POST`'s path, relative to the
    /// base URL), for reading `Location`.
    var collectionPath: String?
    /// The transport's base URL.
    var baseURL: URL?
    /// How bodies are shaped (JSON:API documents, integer ids).
    var shape: BodyShape
    /// The envelope single objects come in.
    var envelope: String?
    /// The envelope lists come in (``RepositoryConfiguration/collectionEnvelope``): a CRUD router's
    /// `{"rows": [{…}]}` answer to a write is its one row.
    var collectionEnvelope: String? = nil

    /// The object the answer stands for.
    ///
    /// - Parameters:
    ///   - response: the successful answer.
    ///   - reads: whether an object reads as the entity as it is.
    /// - Throws: ``DepotError/Code/serverIDUnknown`` when a create's id cannot be learned: the
    ///   only way a successful answer fails here.
    func object(of response: NetworkResponse, reads: (JSONObject) -> Bool) throws -> JSONObject {
        var answer: JSONObject? = nil
        if !response.body.isEmpty, let json = try? JSON(parsing: response.body) {
            if let collectionEnvelope, case .array(let rows)? = json[collectionEnvelope], rows.count == 1 {
                answer = shape.object(rows[0]).objectValue
            } else if let unwrapped = try? JSONMapping.unwrap(json, envelope: envelope) {
                switch shape.object(unwrapped) {
                case .object(let object): answer = object
                case .array(let elements) where elements.count == 1: answer = elements[0].objectValue
                default: break
                }
            }
        }
        // The whole entity: it reads, and holds every key the write sent (an id alone does not).
        if let answer, reads(answer), (sent ?? [:]).keys.allSatisfy({ answer[$0] != nil }) { return answer }
        var object = sent ?? [:]
        for (key, value) in answer ?? [:] { object[key] = value }
        if answer?["id"] != nil { return object }
        if let id = learnedID(response) {
            object["id"] = idJSON(id)
            return object
        }
        throw DepotError(
            .serverIDUnknown,
            "the server applied the create (\(response.status)) but its answer names no id: no \"id\", no Location")
    }

    /// The id the answer's headers or the write's URL give, as text.
    private func learnedID(_ response: NetworkResponse) -> String? {
        if operation == .create, let location = response.header("location"),
            let id = Self.id(inLocation: location, collectionPath: collectionPath, baseURL: baseURL)
        {
            return id
        }
        if let urlID { return urlID }
        // The client's own id, when the body carried it (not a temporary id, not a server-owned key).
        if operation == .create, let entityID, !entityID.isEmpty, !temporaryID, let sent {
            let body = RepositoryConfiguration.writeBody(
                sent, serverOwnedKeys: shape.serverOwnedKeys, creating: true, temporaryID: nil)
            if MovedIDs.idText(body["id"]) == entityID { return entityID }
        }
        return nil
    }

    /// `text` as the JSON the entity's id is: an integer when the entity's ids are integers.
    private func idJSON(_ text: String) -> JSON {
        if shape.integerIDs, let number = Int64(text) { return .integer(number) }
        return .string(text)
    }

    /// The id a `Location` names: the one path segment below the collection's path
    /// (`/api/v1/note/1/` below `/api/v1/note/`), percent-decoded; nil for a `Location` that is
    /// not a URL, on another origin, or not one segment below the collection.
    static func id(inLocation location: String, collectionPath: String?, baseURL: URL?) -> String? {
        guard let collectionPath else { return nil }
        let origin = baseURL ?? URL(string: "http://depot.invalid/")!
        guard
            let collection = try? NetworkRequest(method: .post, path: collectionPath).url(relativeTo: origin),
            let resolved = URL(string: location, relativeTo: collection)?.absoluteURL,
            let target = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
            let home = URLComponents(url: collection, resolvingAgainstBaseURL: true),
            target.scheme?.lowercased() == home.scheme?.lowercased(),
            target.host?.lowercased() == home.host?.lowercased(), target.port == home.port
        else { return nil }
        var prefix = home.percentEncodedPath
        if !prefix.hasSuffix("/") { prefix += "/" }
        let path = target.percentEncodedPath
        guard path.hasPrefix(prefix) else { return nil }
        var rest = path.dropFirst(prefix.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), let id = String(rest).removingPercentEncoding, !id.isEmpty else {
            return nil
        }
        return id
    }
}
