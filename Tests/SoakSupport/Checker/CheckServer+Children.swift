import Depot
import DepotTesting
import Foundation

/// The checker's lists and their children (rounds with ``CheckServerShape/childCollection``): a
/// plain, obviously correct REST pair written for the checker alone, on ``StubServer`` routes so
/// the stub's faults apply. `/lists` assigns `Int` ids (7, 8, 9, …) and records the one it gave
/// each list (by its title) for the judges; `/children` keeps the app's ids. Both honour
/// `Idempotency-Key` (a write sent again under its key gets the first answer, applied once), and
/// neither checks what `listID` names: the judges do.
public final class CheckFamilyServer: Sendable {
    struct State {
        var lists: [Int: JSONObject] = [:]
        var children: [String: JSONObject] = [:]
        var nextID = 7
        /// The id given to each list, by title.
        var assigned: [String: Int] = [:]
        /// The answer of each write's key.
        var keys: [String: StubResponse] = [:]
    }

    let state = LockedValue(State())

    /// Serves `/lists` and `/children` on `stub`.
    public init(on stub: StubServer) {
        stub.route(nil, "/lists") { [self] request, _ in answer(request, lists: true, id: nil) }
        stub.route(nil, "/lists/:id") { [self] request, parameters in answer(request, lists: true, id: parameters["id"])
        }
        stub.route(nil, "/children") { [self] request, _ in answer(request, lists: false, id: nil) }
        stub.route(nil, "/children/:id") { [self] request, parameters in
            answer(request, lists: false, id: parameters["id"])
        }
    }

    /// The id the server gave each list, by title (deleted lists included).
    public var assigned: [String: Int] { state.withLock { $0.assigned } }

    /// The children the server holds.
    public var children: [JSONObject] {
        state.withLock { state in state.children.keys.sorted().compactMap { state.children[$0] } }
    }

    func answer(_ request: RecordedRequest, lists: Bool, id: String?) -> StubResponse {
        state.withLock { state in
            let key = request.method == "GET" ? nil : request.header("Idempotency-Key")
            if let key, let first = state.keys[key] { return first }
            let response = Self.handle(request, lists: lists, id: id, state: &state)
            if let key, (200..<300).contains(response.status) { state.keys[key] = response }
            return response
        }
    }

    static func handle(_ request: RecordedRequest, lists: Bool, id: String?, state: inout State) -> StubResponse {
        let body = request.json?.objectValue ?? [:]
        let notFound = StubResponse.json(["error": "not found"], status: 404)
        guard let id else {
            switch request.method {
            case "GET":
                let all: [JSONObject] =
                    lists
                    ? state.lists.keys.sorted().compactMap { state.lists[$0] }
                    : state.children.keys.sorted().compactMap { state.children[$0] }
                return .json(.array(all.map(JSON.object)))
            case "POST" where lists:
                var object = body
                let made = state.nextID
                state.nextID += 1
                object["id"] = .integer(Int64(made))
                state.lists[made] = object
                if let title = object["title"]?.stringValue { state.assigned[title] = made }
                return .json(.object(object), status: 201)
            case "POST":
                guard let childID = body["id"]?.stringValue else {
                    return .json(["error": "a child needs an id"], status: 422)
                }
                state.children[childID] = body
                return .json(.object(body), status: 201)
            default:
                return .json(["error": "no such route"], status: 405)
            }
        }
        if lists {
            guard let number = Int(id), var object = state.lists[number] else { return notFound }
            switch request.method {
            case "GET": return .json(.object(object))
            case "DELETE":
                state.lists[number] = nil
                return .empty()
            case "PUT":
                object = body
                object["id"] = .integer(Int64(number))
            case "PATCH": object.merge(body) { $1 }
            default: return .json(["error": "no such route"], status: 405)
            }
            state.lists[number] = object
            return .json(.object(object))
        }
        guard var object = state.children[id] else { return notFound }
        switch request.method {
        case "GET": return .json(.object(object))
        case "DELETE":
            state.children[id] = nil
            return .empty()
        case "PUT":
            object = body
            object["id"] = .string(id)
        case "PATCH": object.merge(body) { $1 }
        default: return .json(["error": "no such route"], status: 405)
        }
        state.children[id] = object
        return .json(.object(object))
    }
}
