import Depot
import Foundation

/// How the in-memory REST resource assigns ids to created objects.
public enum StubIDStyle: Sendable {
    /// `"1"`, `"2"`, … as strings.
    case string
    /// `1`, `2`, … as integers.
    case integer
    /// Random UUID strings.
    case uuid
}

/// An in-memory REST collection with json-server semantics.
struct StubResource: Sendable {
    let name: String
    let idStyle: StubIDStyle
    var objects: [JSONObject] = []
    var nextID = 1

    init(name: String, idStyle: StubIDStyle, objects: [JSONObject]) {
        self.name = name
        self.idStyle = idStyle
        self.objects = objects
        nextID = objects.count + 1
    }

    static func idText(_ json: JSON?) -> String? {
        switch json {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    private func index(of id: String) -> Int? {
        objects.firstIndex { Self.idText($0["id"]) == id }
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

    /// Answers `request` for the collection (`id` nil) or for the object with `id`.
    mutating func handle(_ request: RecordedRequest, id: String?) -> StubResponse {
        switch (request.method, id) {
        case ("GET", nil):
            return .json(.array(objects.filter { Self.matches($0, request.queryItems) }.map(JSON.object)))
        case ("POST", nil):
            guard case .object(var object)? = request.json else { return badRequest("expected a JSON object") }
            if object["id"] == nil || object["id"] == .null {
                object["id"] = makeID()
            } else if let given = Self.idText(object["id"]), index(of: given) != nil {
                return .json(["error": .string("an object with id \(given) exists")], status: 409)
            }
            objects.append(object)
            return .json(.object(object), status: 201)
        case ("GET", let id?):
            guard let index = index(of: id) else { return notFound(id) }
            return .json(.object(objects[index]))
        case ("PUT", let id?):
            guard let index = index(of: id) else { return notFound(id) }
            guard case .object(var object)? = request.json else { return badRequest("expected a JSON object") }
            object["id"] = objects[index]["id"]
            objects[index] = object
            return .json(.object(object))
        case ("PATCH", let id?):
            guard let index = index(of: id) else { return notFound(id) }
            guard case .object(let patch)? = request.json else { return badRequest("expected a JSON object") }
            var object = objects[index]
            for (key, value) in patch where key != "id" {
                if value == .null { object[key] = nil } else { object[key] = value }
            }
            objects[index] = object
            return .json(.object(object))
        case ("DELETE", let id?):
            guard let index = index(of: id) else { return notFound(id) }
            objects.remove(at: index)
            return .empty(status: 204)
        default:
            return .json(["error": "method not allowed"], status: 405)
        }
    }

    private mutating func makeID() -> JSON {
        defer { nextID += 1 }
        switch idStyle {
        case .string: return .string(String(nextID))
        case .integer: return .integer(Int64(nextID))
        case .uuid: return .string(UUID().uuidString)
        }
    }

    private func notFound(_ id: String) -> StubResponse {
        .json(["error": .string("no \(name) with id \(id)")], status: 404)
    }

    private func badRequest(_ message: String) -> StubResponse {
        .json(["error": .string(message)], status: 400)
    }
}
