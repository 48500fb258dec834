import Depot
import DepotTesting
import Foundation

extension CheckServer {
    /// Records a write applied to `object` (nil: deleted) by `request`; a write without `If-Match`
    /// over another client's version newer than any the app was shown, when the app had been given
    /// the object's `ETag`, is marked a silent overwrite.
    func record(
        _ method: String, id: String, value: String?, request: RecordedRequest, account: String,
        replacing previous: Object?, state: inout State
    ) {
        let ifMatch = request.header("If-Match") != nil
        var silent = false
        if shape.servesETags, !ifMatch, let previous, previous.writer == "other", state.tagged.contains(id),
            previous.version > state.shown[id] ?? 0
        {
            silent = true
        }
        state.applied.append(
            Applied(
                method: method, id: id, value: value, account: account, key: request.header("Idempotency-Key"),
                ifMatch: ifMatch, silentOverwrite: silent))
    }

    /// Takes the schema field (`tag` or `label`) a write `body` of `method` sends into `object`;
    /// a body carrying both (not null) is neither version's shape, and is noted.
    func takeSchemaField(
        _ body: JSONObject, into object: inout Object, method: String, state: inout State
    ) {
        let fields = ["tag", "label"].compactMap { key in
            body[key].flatMap { $0 == .null ? nil : SchemaField(key: key, value: $0) }
        }
        if fields.count > 1 {
            state.mixedShapes.append("\(method) \(object.id) \(JSON.object(body))")
        }
        if let field = fields.last {
            object.schemaField = field
        } else if let key = ["tag", "label"].first(where: { body[$0] == .null }), object.schemaField?.key == key {
            object.schemaField = nil
        }
    }

    /// A 412 with the current object when the request's `If-Match` names another version.
    func failedPrecondition(
        _ object: Object, request: RecordedRequest, account: String, state: inout State
    ) -> StubResponse? {
        guard let precondition = request.header("If-Match"), shape.servesETags, precondition != "*",
            precondition != tag(object, account: account)
        else { return nil }
        return single(object, status: 412, account: account, state: &state)
    }

    func create(_ request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        guard let body = request.json?.objectValue, let value = body["value"]?.stringValue else {
            return Self.error(400, "a create needs an object with a value")
        }
        let sent = body["id"]?.stringValue
        let id: String
        if shape.assignsIDs {
            id = "s\(state.nextID)"
            state.nextID += 1
        } else {
            guard let sent, !sent.isEmpty else { return Self.error(400, "a create needs an id") }
            id = canonical(sent)
            if state.objects[id] != nil { return Self.error(409, "item \(sent) exists") }
        }
        var object = Object(id: id, value: value, version: state.nextVersion, writer: "app", clientID: sent)
        takeSchemaField(body, into: &object, method: "POST", state: &state)
        state.nextVersion += 1
        state.objects[id] = object
        state.tombstones[id] = nil
        state.order.append(id)
        record("POST", id: id, value: value, request: request, account: account, replacing: nil, state: &state)
        return single(object, status: 201, account: account, state: &state)
    }

    /// PUT replaces the value, PATCH merges it (merge patch or plain JSON); both honour `If-Match`.
    func write(_ id: String, request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        guard var object = state.objects[id] else { return Self.error(404, "no item \(id)") }
        if let refusal = failedPrecondition(object, request: request, account: account, state: &state) {
            return refusal
        }
        let body = request.json?.objectValue ?? [:]
        let value = body["value"]?.stringValue
        if request.method == "PUT", value == nil { return Self.error(400, "a PUT needs a value") }
        let previous = object
        if let value {
            object.value = value
            object.corrupt = false
        }
        if request.method == "PUT" { object.schemaField = nil }
        takeSchemaField(body, into: &object, method: request.method, state: &state)
        object.version = state.nextVersion
        object.writer = "app"
        state.nextVersion += 1
        state.objects[id] = object
        record(
            request.method, id: id, value: object.value, request: request, account: account, replacing: previous,
            state: &state)
        if shape.answersWritesEmpty { return StubResponse(status: 204) }
        return single(object, status: 200, account: account, state: &state)
    }

    func delete(_ id: String, request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        guard let object = state.objects[id] else { return Self.error(404, "no item \(id)") }
        if let refusal = failedPrecondition(object, request: request, account: account, state: &state) {
            return refusal
        }
        state.objects[id] = nil
        state.order.removeAll { $0 == id }
        state.tombstones[id] = state.nextVersion
        state.nextVersion += 1
        record("DELETE", id: id, value: nil, request: request, account: account, replacing: object, state: &state)
        return StubResponse(status: 204)
    }

    /// `POST /items/collection`: an array; an object whose id exists replaces it, the others are
    /// created; answers the stored objects (with `client_id` when the server assigns ids).
    func batch(_ request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        guard shape.batchRoute else { return Self.error(404, "no batch route") }
        guard let elements = request.json?.arrayValue else { return Self.error(400, "expected an array") }
        var answers: [JSON] = []
        for element in elements {
            guard let body = element.objectValue, let value = body["value"]?.stringValue else {
                return Self.error(400, "every element needs a value")
            }
            let sent = body["id"]?.stringValue.map(canonical)
            if let sent, var object = state.objects[sent] {
                let previous = object
                object.value = value
                object.corrupt = false
                object.schemaField = nil
                takeSchemaField(body, into: &object, method: "BATCH", state: &state)
                object.version = state.nextVersion
                object.writer = "app"
                state.nextVersion += 1
                state.objects[sent] = object
                record(
                    "BATCH", id: sent, value: value, request: request, account: account, replacing: previous,
                    state: &state)
                var json = representation(object, account: account, full: true)
                if shape.assignsIDs { json["client_id"] = .string(sent) }
                answers.append(.object(json))
                continue
            }
            let id: String
            if shape.assignsIDs {
                id = "s\(state.nextID)"
                state.nextID += 1
            } else {
                guard let sent else { return Self.error(400, "every element needs an id") }
                id = sent
            }
            var object = Object(id: id, value: value, version: state.nextVersion, writer: "app", clientID: sent)
            takeSchemaField(body, into: &object, method: "BATCH", state: &state)
            state.nextVersion += 1
            state.objects[id] = object
            state.tombstones[id] = nil
            state.order.append(id)
            record("BATCH", id: id, value: value, request: request, account: account, replacing: nil, state: &state)
            answers.append(.object(representation(object, account: account, full: true)))
        }
        return .json(.array(answers))
    }
}
