import Depot
import Foundation

extension StubResource {
    /// `POST /<name>/collection`: a JSON array of objects. Each whose id exists replaces that
    /// object (PUT semantics); the others are created (an id assigned when they have none). Answers
    /// 200 with the array of stored objects, in the order sent unless ``batchReply`` says
    /// otherwise. A body that is not an array of objects answers 400 and stores nothing.
    mutating func batch(_ request: RecordedRequest) -> Outcome {
        guard case .array(let elements)? = request.json else {
            return Outcome(response: badRequest("expected a JSON array of objects"))
        }
        var incoming: [JSONObject] = []
        incoming.reserveCapacity(elements.count)
        for (offset, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                return Outcome(response: badRequest("element \(offset) is a \(element.kindName), not an object"))
            }
            incoming.append(object)
        }
        var stored: [JSONObject] = []
        stored.reserveCapacity(incoming.count)
        for var object in incoming {
            if let id = Self.idText(object["id"]), let index = position(of: id) {
                object["id"] = objects[index]["id"]
                replace(at: index, with: object)
            } else {
                if object["id"] == nil || object["id"] == .null { object["id"] = makeID() }
                _ = insert(object)
            }
            stored.append(object)
        }
        let written = stored.map { Self.idText($0["id"]) }
        if batchReply.contains(.shuffled), stored.count > 1 {
            var shuffled = stored.shuffled()
            if shuffled == stored { shuffled.reverse() }
            stored = shuffled
        }
        if batchReply.contains(.missingOne), !stored.isEmpty {
            stored.removeLast()
        }
        return Outcome(response: .json(.array(stored.map(JSON.object))), written: written)
    }
}
