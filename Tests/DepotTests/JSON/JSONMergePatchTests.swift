import Depot
import Foundation
import Testing

@Suite struct JSONMergePatchTests {
    private static func json(_ text: String) throws -> JSON {
        try JSON(parsing: Data(text.utf8))
    }

    /// RFC 7396 Appendix A, every row: original, patch, result.
    static let appendixA: [(String, String, String)] = [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, #"null"#, #"null"#),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ]

    @Test("applying gives every result of RFC 7396 Appendix A", arguments: appendixA)
    func appendixAApply(original: String, patch: String, result: String) throws {
        #expect(try Self.json(original).applyingMergePatch(Self.json(patch)) == Self.json(result))
    }

    @Test("a patch made from each Appendix A pair gives back its result", arguments: appendixA)
    func appendixARoundTrip(original: String, patch: String, result: String) throws {
        let old = try Self.json(original)
        let new = try Self.json(result)
        let made = JSON.mergePatch(from: old, to: new)
        #expect(old.applyingMergePatch(made ?? .object([:])) == new)
        #expect((made == nil) == (old == new))
    }

    @Test("the RFC 7396 section 3 example: diff gives exactly the RFC's patch, applying it the RFC's result")
    func section3Example() throws {
        let original = try Self.json(
            #"""
            {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
             "tags": ["example", "sample"], "content": "This will be unchanged"}
            """#)
        let patch = try Self.json(
            #"""
            {"title": "Hello!", "phoneNumber": "+01-123-456-7890", "author": {"familyName": null}, "tags": ["example"]}
            """#)
        let result = try Self.json(
            #"""
            {"title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
             "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"}
            """#)
        #expect(original.applyingMergePatch(patch) == result)
        #expect(JSON.mergePatch(from: original, to: result) == patch)
    }

    @Test(
        "no patch when nothing changed, for every kind of value",
        arguments: [
            JSON.null, true, 3, 2.5, "text", [1, [2, ["a": 3]]], ["a": ["b": ["c": [1, 2]]], "d": nil],
        ])
    func equalGivesNil(value: JSON) {
        #expect(JSON.mergePatch(from: value, to: value) == nil)
    }

    @Test("changed, added and removed members; nested objects diffed; unchanged members left out")
    func minimalPatch() {
        let old: JSON = [
            "id": "1", "text": "hi", "gone": 1, "meta": ["pinned": false, "color": "red", "deep": ["x": 1]],
        ]
        let new: JSON = [
            "id": "1", "text": "hello", "meta": ["pinned": true, "color": "red", "deep": ["x": 1]], "added": ["y": 2],
        ]
        let patch = JSON.mergePatch(from: old, to: new)
        #expect(patch == ["text": "hello", "gone": nil, "meta": ["pinned": true], "added": ["y": 2]])
    }

    @Test("arrays are replaced whole, never diffed element by element")
    func arraysReplacedWhole() {
        let old: JSON = ["tags": ["a", "b", "c"], "points": [["x": 1], ["x": 2]]]
        let new: JSON = ["tags": ["a", "b"], "points": [["x": 1], ["x": 3]]]
        let patch = JSON.mergePatch(from: old, to: new)
        #expect(patch == ["tags": ["a", "b"], "points": [["x": 1], ["x": 3]]])
        #expect(old.applyingMergePatch(patch!) == new)
        #expect((["tags": ["a", "b"]] as JSON).applyingMergePatch(["tags": ["z"]]) == ["tags": ["z"]])
    }

    @Test("null in the new value means removal: sent only when the old value had the member")
    func nullIsRemoval() {
        let old: JSON = ["a": 1, "b": nil, "c": ["d": 1]]
        let new: JSON = ["a": nil, "b": nil, "c": ["d": 1, "e": nil], "f": nil, "g": ["h": nil, "i": 2]]
        let patch = JSON.mergePatch(from: old, to: new)
        #expect(patch == ["a": nil, "g": ["i": 2]])
        #expect(old.applyingMergePatch(patch!) == ["b": nil, "c": ["d": 1], "g": ["i": 2]])
        #expect(JSON.mergePatch(from: ["a": nil], to: [:]) == ["a": nil], "a null member that disappears is removed")
    }

    @Test("a value that is not an object on either side is replaced whole")
    func nonObjects() {
        #expect(JSON.mergePatch(from: ["a": 1], to: [1, 2]) == [1, 2])
        #expect(JSON.mergePatch(from: "x", to: ["a": 1, "b": nil]) == ["a": 1])
        #expect(JSON.mergePatch(from: ["a": 1], to: nil) == .null)
        #expect(JSON.mergePatch(from: ["a": "x"], to: ["a": ["b": 1]]) == ["a": ["b": 1]])
        #expect(JSON.mergePatch(from: ["a": ["b": 1]], to: ["a": "x"]) == ["a": "x"])
    }

    @Test("round trip: old + mergePatch(old, new) == new for 2,000 random nested objects without nulls")
    func randomRoundTrip() throws {
        var random = SplitMix64(seed: 7396)
        var unchanged = 0
        for index in 0..<2_000 {
            let old = JSON.object(random.object(depth: 3))
            let new = random.mutated(old, depth: 3)
            let patch = JSON.mergePatch(from: old, to: new)
            if old == new {
                unchanged += 1
                #expect(patch == nil, "case \(index)")
            } else {
                let made = try #require(patch, "case \(index)")
                #expect(old.applyingMergePatch(made) == new, "case \(index): \(old) → \(new) via \(made)")
                for (key, _) in made.objectValue ?? [:] {
                    #expect(old[key] != new[key], "case \(index): unchanged member \(key) in the patch")
                }
            }
        }
        #expect(
            unchanged > 0 && unchanged < 1_000, "the generator makes both equal and different pairs, \(unchanged) equal"
        )
    }
}

/// A small seeded generator, so random cases are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }

    mutating func key() -> String { ["a", "b", "c", "d", "e", "f", "id", "text"].randomElement(using: &self)! }

    /// A value without nulls.
    mutating func value(depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &self) {
        case 0: return .bool(chance(50))
        case 1: return .integer(Int64.random(in: -3...3, using: &self))
        case 2: return .double(Double(Int.random(in: 0...3, using: &self)) + 0.5)
        case 3: return .string(["", "x", "y", "é"].randomElement(using: &self)!)
        case 4: return .array((0..<Int.random(in: 0...2, using: &self)).map { _ in value(depth: 0) })
        case 5: return .array([.object(object(depth: depth - 1))])
        default: return .object(object(depth: depth - 1))
        }
    }

    mutating func object(depth: Int) -> JSONObject {
        var object: JSONObject = [:]
        for _ in 0..<Int.random(in: 0...4, using: &self) { object[key()] = value(depth: depth) }
        return object
    }

    /// `json` with some members changed, removed, added or recursively mutated (no nulls added).
    mutating func mutated(_ json: JSON, depth: Int) -> JSON {
        guard case .object(var object) = json else { return chance(50) ? json : value(depth: depth) }
        if chance(15) { return json }
        for key in object.keys.sorted() {
            switch Int.random(in: 0..<6, using: &self) {
            case 0: object[key] = nil
            case 1: object[key] = value(depth: depth)
            case 2, 3: object[key] = mutated(object[key]!, depth: depth - 1)
            default: break
            }
        }
        if chance(40) { object[key()] = value(depth: depth) }
        return .object(object)
    }
}
