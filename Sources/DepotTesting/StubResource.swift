import Depot
import Foundation
import HTTPTypes

/// How the in-memory REST resource assigns ids to created objects.
public enum StubIDStyle: Sendable {
    /// `"1"`, `"2"`, … as strings.
    case string
    /// `1`, `2`, … as integers.
    case integer
    /// Random UUID strings.
    case uuid
}

/// An in-memory REST collection with json-server semantics, plus RFC 7396 PATCH, a `collection`
/// batch endpoint (StubResource+Batch.swift), ETag/If-Match, and paging (StubResource+Paging.swift).
struct StubResource: Sendable {
    /// The name, without leading or trailing slashes: the first path segment it serves.
    let name: String
    /// Declared with a trailing slash (`"messages/"`): collection routes need the slash.
    let trailingSlash: Bool
    let idStyle: StubIDStyle
    /// How the batch endpoint answers.
    var batchReply: StubBatchReply = []
    /// The most objects one page holds, whatever `_limit` asks; nil for no cap.
    var maximumPageSize: Int?
    /// Whether a page is answered without `X-Total-Count`.
    var hidesTotalCount = false
    /// Whether writes stamp `updated_at` (a counter), deletes leave a tombstone, and
    /// `?updated_after=` lists the objects and tombstones stamped at or after it.
    var tracksChanges = false
    /// The last `updated_at` given.
    var changeClock: Int64 = 0
    /// Deleted objects, `{"id": …, "deleted": true, "updated_at": …}`, while ``tracksChanges``.
    var tombstones: [JSONObject] = []
    /// The PATCH formats taken; others answer 415.
    var patchFormats: [PatchFormat] = [.mergePatch]
    /// Whether a 415 names the formats taken in `Accept-Patch`.
    var advertisesPatchFormats = true
    /// Whether a create gets an id made here, whatever id it carries (a read-only primary key).
    var assignsIDs = false
    private(set) var objects: [JSONObject] = []
    var nextID = 1
    /// Whether writes ignore `Idempotency-Key`, as most servers do: a repeated key applies again.
    var ignoresIdempotencyKeys = false
    /// Whether a write under a key whose first request is still being processed (its answer held
    /// back by a delay) is answered 409, as the IETF idempotency-key draft and Stripe do.
    var conflictsWhileProcessing = false
    /// Whether a PUT sets only the members its body names and keeps the others (a partial
    /// update), as many frameworks' PUT does; `null` sets a member to `null`.
    var putKeepsOmittedFields = false
    /// Whether PUT and PATCH answer `204 No Content` without an `ETag`.
    var answersWritesEmpty = false
    /// Where each id is in `objects`.
    private var positions: [String: Int] = [:]
    /// The version of each object, for its ETag; objects never changed have none (version 0).
    private var versions: [String: Int] = [:]
    private var nextVersion = 1

    init(name: String, idStyle: StubIDStyle, objects: [JSONObject]) {
        self.name = Self.key(for: name)
        trailingSlash = name.hasSuffix("/") && !self.name.isEmpty
        self.idStyle = idStyle
        self.objects = objects
        nextID = objects.count + 1
        reindex()
    }

    /// The key a resource declared as `name` is kept under: `"messages/"` → `"messages"`.
    static func key(for name: String) -> String {
        name.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    static func idText(_ json: JSON?) -> String? {
        switch json {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    static func matches(_ object: JSONObject, _ filter: [URLQueryItem]) -> Bool {
        filter.allSatisfy { item in
            guard let value = object[item.name] else { return false }
            switch value {
            case .string(let text): return text == item.value
            case .integer(let number): return String(number) == item.value
            case .double(let number): return Double(item.value ?? "") == number
            case .bool(let flag): return String(flag) == item.value
            case .null: return item.value == "null"
            default: return false
            }
        }
    }

    /// What handling one request did: the answer, and the objects it wrote.
    struct Outcome {
        /// The answer.
        var response: StubResponse
        /// The id text of each object written, in order (nil for an id neither string nor integer).
        var written: [String?] = []
    }

    /// Answers `request` for the collection (`id` nil) or for the object with `id`.
    mutating func handle(_ request: RecordedRequest, id: String?) -> Outcome {
        if trailingSlash, id == nil, !request.path.hasSuffix("/") {
            return Outcome(response: redirectToSlash(request))
        }
        switch (request.method, id) {
        case ("GET", nil):
            return Outcome(response: list(request))
        case ("POST", nil):
            return create(request)
        case ("POST", "collection"):
            return batch(request)
        case ("GET", let id?):
            guard let index = position(of: id) else { return Outcome(response: notFound(id)) }
            return Outcome(response: answer(index))
        case ("PUT", let id?):
            return replace(request, id: id)
        case ("PATCH", let id?):
            return patch(request, id: id)
        case ("DELETE", let id?):
            guard let index = position(of: id) else { return Outcome(response: notFound(id)) }
            if let failed = failedIfMatch(request, index: index) { return Outcome(response: failed) }
            let written = Self.idText(objects[index]["id"])
            remove(at: index)
            return Outcome(response: .empty(status: 204), written: [written])
        default:
            return Outcome(response: .json(["error": "method not allowed"], status: 405))
        }
    }

    // MARK: Single objects

    private mutating func create(_ request: RecordedRequest) -> Outcome {
        if case .array(let elements)? = request.json { return bulkCreate(elements) }
        guard case .object(var object)? = request.json else {
            return Outcome(response: badRequest("expected a JSON object"))
        }
        if assignsIDs || object["id"] == nil || object["id"] == .null {
            object["id"] = makeID()
        } else if let given = Self.idText(object["id"]), position(of: given) != nil {
            return Outcome(response: .json(["error": .string("an object with id \(given) exists")], status: 409))
        }
        let index = insert(object)
        return Outcome(response: answer(index, status: 201), written: [Self.idText(object["id"])])
    }

    /// A JSON array POSTed to the collection (Django REST Framework's `many=True`): every object
    /// created, all or none, answered 201 with the created objects in order.
    private mutating func bulkCreate(_ elements: [JSON]) -> Outcome {
        var objects: [JSONObject] = []
        var taken = Set<String>()
        for element in elements {
            guard case .object(let object) = element else {
                return Outcome(response: badRequest("expected an array of JSON objects"))
            }
            if !assignsIDs, let given = Self.idText(object["id"]) {
                guard position(of: given) == nil, taken.insert(given).inserted else {
                    return Outcome(
                        response: .json(["error": .string("an object with id \(given) exists")], status: 409))
                }
            }
            objects.append(object)
        }
        var created: [JSON] = []
        var written: [String?] = []
        for var object in objects {
            if assignsIDs || object["id"] == nil || object["id"] == .null { object["id"] = makeID() }
            let index = insert(object)
            created.append(.object(self.objects[index]))
            written.append(Self.idText(object["id"]))
        }
        return Outcome(response: .json(.array(created), status: 201), written: written)
    }

    private mutating func replace(_ request: RecordedRequest, id: String) -> Outcome {
        guard let index = position(of: id) else { return Outcome(response: notFound(id)) }
        if let failed = failedIfMatch(request, index: index) { return Outcome(response: failed) }
        guard case .object(var object)? = request.json else {
            return Outcome(response: badRequest("expected a JSON object"))
        }
        if putKeepsOmittedFields { object = objects[index].merging(object) { _, new in new } }
        object["id"] = objects[index]["id"]
        replace(at: index, with: object)
        return Outcome(response: writeAnswer(index), written: [Self.idText(object["id"])])
    }

    /// The answer to a PUT or PATCH that changed the object at `index`: the object with its
    /// `ETag`, or `204` without either when the resource ``answersWritesEmpty``.
    private func writeAnswer(_ index: Int) -> StubResponse {
        answersWritesEmpty ? .empty(status: 204) : answer(index)
    }

    /// A PATCH in one of ``patchFormats``: RFC 7396 (`application/merge-patch+json`: merged
    /// into the object, nested objects recursively, `null` removes), a partial object
    /// (`application/json`: its top-level keys set, `null` included) or RFC 6902 operations
    /// (`application/json-patch+json`: add, replace, remove, test on object members). The id
    /// never changes. Another type answers 415, with `Accept-Patch` when it advertises.
    private mutating func patch(_ request: RecordedRequest, id: String) -> Outcome {
        guard let index = position(of: id) else { return Outcome(response: notFound(id)) }
        let mediaType = request.header("content-type")?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard let format = patchFormats.first(where: { $0.mediaType == mediaType }) else {
            let taken = patchFormats.map(\.mediaType).joined(separator: ", ")
            let error: JSON = [
                "error": .string("PATCH needs Content-Type \(taken), not \(mediaType ?? "none")")
            ]
            let headers = advertisesPatchFormats ? [("Accept-Patch", taken)] : []
            return Outcome(response: Self.setting(headers, on: .json(error, status: 415)))
        }
        if let failed = failedIfMatch(request, index: index) { return Outcome(response: failed) }
        guard let patch = request.json else { return Outcome(response: badRequest("expected a JSON patch")) }
        let patched: JSON
        switch format {
        case .mergePatch:
            guard case .object = patch else {
                return Outcome(response: badRequest("a merge patch for an object must be an object"))
            }
            patched = JSON.object(objects[index]).applyingMergePatch(patch)
        case .json:
            guard case .object(let fields) = patch else {
                return Outcome(response: badRequest("a partial update must be an object"))
            }
            patched = .object(objects[index].merging(fields) { _, new in new })
        case .jsonPatch:
            do {
                patched = try Self.applying(patch, to: .object(objects[index]))
            } catch let failure as JSONPatchFailure {
                return Outcome(response: .json(["error": .string(failure.message)], status: failure.status))
            } catch {
                return Outcome(response: badRequest("\(error)"))
            }
        }
        guard case .object(var object) = patched else {
            return Outcome(response: badRequest("a patch for an object must leave an object"))
        }
        object["id"] = objects[index]["id"]
        replace(at: index, with: object)
        return Outcome(response: writeAnswer(index), written: [Self.idText(object["id"])])
    }

    /// Why a JSON Patch could not be applied: 400 for a malformed one, 409 for a failed `test`
    /// or a path that is not there, 422 for an operation the stub does not do.
    struct JSONPatchFailure: Error {
        var status: Int
        var message: String
    }

    /// `document` with the RFC 6902 operations of `patch` applied, in order (all or nothing).
    static func applying(_ patch: JSON, to document: JSON) throws -> JSON {
        guard case .array(let operations) = patch else {
            throw JSONPatchFailure(status: 400, message: "a JSON Patch is an array of operations")
        }
        var document = document
        for operation in operations {
            guard let fields = operation.objectValue, case .string(let op)? = fields["op"],
                case .string(let path)? = fields["path"]
            else { throw JSONPatchFailure(status: 400, message: "each operation needs an op and a path") }
            let tokens = try pointer(path)
            switch op {
            case "add", "replace":
                guard let value = fields["value"] else {
                    throw JSONPatchFailure(status: 400, message: "\(op) needs a value")
                }
                if tokens.isEmpty {
                    document = value
                } else {
                    try set(&document, tokens[...], to: value, mustExist: op == "replace")
                }
            case "remove":
                guard !tokens.isEmpty else {
                    throw JSONPatchFailure(status: 400, message: "cannot remove the document")
                }
                try set(&document, tokens[...], to: nil, mustExist: true)
            case "test":
                guard value(in: document, tokens[...]) == fields["value"] else {
                    throw JSONPatchFailure(status: 409, message: "test failed at \(path)")
                }
            default:
                throw JSONPatchFailure(status: 422, message: "the stub does not do \(op)")
            }
        }
        return document
    }

    /// The reference tokens of a JSON pointer (`~1` is `/`, `~0` is `~`).
    private static func pointer(_ path: String) throws -> [String] {
        guard !path.isEmpty else { return [] }
        guard path.hasPrefix("/") else { throw JSONPatchFailure(status: 400, message: "bad JSON pointer \(path)") }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    private static func value(in document: JSON, _ tokens: ArraySlice<String>) -> JSON? {
        guard let first = tokens.first else { return document }
        guard let member = document.objectValue?[first] else { return nil }
        return value(in: member, tokens.dropFirst())
    }

    /// Sets (or with nil removes) the member at `tokens`; its parent must be an object.
    private static func set(_ document: inout JSON, _ tokens: ArraySlice<String>, to value: JSON?, mustExist: Bool)
        throws
    {
        guard case .object(var object) = document, let first = tokens.first else {
            throw JSONPatchFailure(status: 409, message: "the path does not lead through objects")
        }
        if tokens.count == 1 {
            if mustExist, object[first] == nil {
                throw JSONPatchFailure(status: 409, message: "no member \(first) to change")
            }
            object[first] = value
        } else {
            guard var child = object[first] else {
                throw JSONPatchFailure(status: 409, message: "no member \(first) on the path")
            }
            try set(&child, tokens.dropFirst(), to: value, mustExist: mustExist)
            object[first] = child
        }
        document = .object(object)
    }

    // MARK: ETag and If-Match

    /// The ETag of the object `id` now: `"<id>-<version>"`, a new version at each change.
    func etag(of id: String) -> String {
        // Ids of ASCII letters and digits (the usual ones) need no escaping: skip Foundation's.
        let plain = id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        let safe = plain ? id : id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        return "\"\(safe)-\(versions[id] ?? 0)\""
    }

    /// The object at `index` with its ETag.
    func answer(_ index: Int, status: Int = 200) -> StubResponse {
        let object = objects[index]
        let response = StubResponse.json(.object(object), status: status)
        guard let id = Self.idText(object["id"]) else { return response }
        return Self.setting([("ETag", etag(of: id))], on: response)
    }

    /// A 412 with the current object when the request's `If-Match` names none of its ETag (nor `*`).
    private func failedIfMatch(_ request: RecordedRequest, index: Int) -> StubResponse? {
        guard let ifMatch = request.header("if-match"), let id = Self.idText(objects[index]["id"]) else { return nil }
        let current = etag(of: id)
        let tags = ifMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tags.contains(where: { $0 == "*" || $0 == current }) { return nil }
        return answer(index, status: 412)
    }

    // MARK: Storage

    func position(of id: String) -> Int? { positions[id] }

    /// Appends `object` (whose id is set) and returns its index.
    mutating func insert(_ object: JSONObject) -> Int {
        var object = object
        if tracksChanges {
            changeClock += 1
            object["updated_at"] = .integer(changeClock)
            if let id = Self.idText(object["id"]) { tombstones.removeAll { Self.idText($0["id"]) == id } }
        }
        objects.append(object)
        let index = objects.count - 1
        if let id = Self.idText(object["id"]) {
            if positions[id] == nil { positions[id] = index }
            bumpVersion(of: id)
        }
        return index
    }

    /// Replaces the object at `index`; its ETag changes when its content does.
    mutating func replace(at index: Int, with object: JSONObject) {
        var object = object
        if tracksChanges { object["updated_at"] = objects[index]["updated_at"] }
        guard objects[index] != object else { return }
        if tracksChanges {
            changeClock += 1
            object["updated_at"] = .integer(changeClock)
        }
        objects[index] = object
        if let id = Self.idText(object["id"]) { bumpVersion(of: id) }
    }

    /// Sets the `updated_at` of the object at `index` (the ETag does not change).
    mutating func stamp(at index: Int, _ stamp: Int64) {
        objects[index]["updated_at"] = .integer(stamp)
    }

    private mutating func remove(at index: Int) {
        let removed = objects.remove(at: index)
        if tracksChanges {
            changeClock += 1
            tombstones.append(["id": removed["id"] ?? .null, "deleted": true, "updated_at": .integer(changeClock)])
        }
        if let id = Self.idText(removed["id"]) { bumpVersion(of: id) }
        reindex()
    }

    private mutating func bumpVersion(of id: String) {
        versions[id] = nextVersion
        nextVersion += 1
    }

    private mutating func reindex() {
        positions.removeAll(keepingCapacity: true)
        for (index, object) in objects.enumerated() {
            if let id = Self.idText(object["id"]), positions[id] == nil { positions[id] = index }
        }
    }

    mutating func makeID() -> JSON {
        while true {
            defer { nextID += 1 }
            switch idStyle {
            case .string: if position(of: String(nextID)) == nil { return .string(String(nextID)) }
            case .integer: if position(of: String(nextID)) == nil { return .integer(Int64(nextID)) }
            case .uuid: return .string(UUID.randomV4().uuidString)
            }
        }
    }

    // MARK: Answers

    /// Sets response headers: the one place that knows how ``StubResponse`` keeps them.
    static func setting(_ headers: [(name: String, value: String)], on response: StubResponse) -> StubResponse {
        var response = response
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { response.headers[name] = value }
        }
        return response
    }

    /// A 301 to the same collection path with the trailing slash the resource was declared with,
    /// as Django REST Framework answers (after which clients often re-send a POST as a GET).
    private func redirectToSlash(_ request: RecordedRequest) -> StubResponse {
        let query = Self.encodedQuery(request.queryItems)
        let path = request.rawPath + "/" + (query.isEmpty ? "" : "?" + query)
        // Absolute: FoundationNetworking mis-resolves a relative Location and loops on the old path.
        let location = request.header("host").map { "http://\($0)\(path)" } ?? path
        let error: JSON = ["error": .string("\(name) is served at /\(name)/")]
        return Self.setting([("Location", location)], on: .json(error, status: 301))
    }

    func notFound(_ id: String) -> StubResponse {
        .json(["error": .string("no \(name) with id \(id)")], status: 404)
    }

    func badRequest(_ message: String) -> StubResponse {
        .json(["error": .string(message)], status: 400)
    }
}
