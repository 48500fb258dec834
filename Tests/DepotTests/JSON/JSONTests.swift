import Depot
import Foundation
import Testing

@Suite struct JSONTests {
    @Test("integers round-trip exactly, apart from doubles")
    func exactIntegers() throws {
        let json: JSON = ["big": .integer(Int64.max), "small": .integer(Int64.min), "pi": 3.25, "one": 1]
        let back = try JSON(parsing: json.serialized())
        #expect(back == json)
        #expect(back["big"]?.int64Value == Int64.max)
        #expect(back["pi"] == .double(3.25))
        #expect(back["one"] == .integer(1))
    }

    @Test("literals, null, nesting and Hashable")
    func literals() throws {
        let json: JSON = ["a": [1, "two", nil, true, ["b": 2.5]]]
        #expect(json["a"]?.arrayValue?.count == 5)
        #expect(Set([json, json]).count == 1)
        #expect(try JSON(parsing: Data("null".utf8)) == .null)
    }

    @Test("malformed text is a .decoding error")
    func malformed() {
        #expect { try JSON(parsing: Data("{\"a\":".utf8)) } throws: { ($0 as? DepotError)?.code == .decoding }
    }

    @Test("Codable entities map to and from dictionaries")
    func codableBridge() throws {
        let message = Message(id: "1", text: "hi", author: nil)
        let object = try JSONMapping.object(message)
        #expect(object == ["id": "1", "text": "hi"])
        #expect(try JSONMapping.entity(Message.self, from: .object(object)) == message)
    }
}
