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

@Suite struct JSONParserTests {
    @Test("parses every kind of value, escapes and surrogate pairs included")
    func parsesValues() throws {
        let text =
            #"{"a": [1, -2, 3.5, -0.25e2, 1E3, true, false, null], "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "e": {}, "l": []}"#
        let json = try JSON(parsing: Data(text.utf8))
        #expect(json["a"] == [1, -2, 3.5, -25.0, 1000.0, true, false, nil])
        #expect(json["s"] == .string("q\"\\/\u{8}\u{c}\n\r\té😀"))
        #expect(json["e"] == .object([:]) && json["l"] == .array([]))
    }

    @Test("integers beyond 64 bits become doubles; 64-bit extremes stay exact")
    func integerRange() throws {
        #expect(try JSON(parsing: Data("9223372036854775807".utf8)) == .integer(.max))
        #expect(try JSON(parsing: Data("-9223372036854775808".utf8)) == .integer(.min))
        #expect(try JSON(parsing: Data("9223372036854775808".utf8)) == .double(9223372036854775808))
    }

    @Test(
        "malformed text is a .decoding error naming the byte",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "{'a': 1}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "\"\\ud800\"",
            "[1] 2", "nul",
            "\"a\u{1}b\"", "1e", "{\"a\":1,}",
        ])
    func malformed(text: String) {
        #expect { try JSON(parsing: Data(text.utf8)) } throws: {
            let error = $0 as? DepotError
            return error?.code == .decoding && error?.message.contains("at byte") == true
        }
    }

    @Test("nesting deeper than the limit is refused, not a stack overflow")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try JSON(parsing: Data(deep.utf8)) } throws: { ($0 as? DepotError)?.code == .decoding }
    }

    @Test("writing then parsing gives the same value; control characters are escaped")
    func roundTrip() throws {
        let json: JSON = ["z": "line\nbreak\u{1}", "a": [1.5, 1e300, -3, 2.0], "m": ["k": nil]]
        let text = String(decoding: try json.serialized(), as: UTF8.self)
        #expect(text == #"{"a":[1.5,1e+300,-3,2.0],"m":{"k":null},"z":"line\nbreak\u0001"}"#)
        #expect(try JSON(parsing: Data(text.utf8)) == json)
        #expect { try JSON.double(.infinity).serialized() } throws: { ($0 as? DepotError)?.code == .encoding }
    }
}
