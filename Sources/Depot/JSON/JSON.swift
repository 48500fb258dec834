import Foundation

/// A JSON value: Sendable, Hashable, written with literals. Integers keep their exact value
/// (`Int64` ids round-trip), and are kept apart from doubles.
///
/// ```swift
/// let body: JSON = ["text": "hello", "likes": 3, "tags": ["a", "b"], "reply": nil]
/// ```
public enum JSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object(JSONObject)
}

/// A JSON object: what entities are mapped to and from.
public typealias JSONObject = [String: JSON]

extension JSON {
    /// The string, if this is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, if this is one (or a double with an exact integer value).
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }
    /// The integer as `Int`, if this is one that fits.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }
    /// The number as a Double, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The array, if this is one.
    public var arrayValue: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The object, if this is one.
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }
    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> JSON? { objectValue?[key] }

    /// A short name of the kind of value, for error messages ("string", "integer"…).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A double.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// An object.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: CustomStringConvertible {
    /// The value as compact JSON text with sorted keys.
    public var description: String {
        (try? String(decoding: serialized(), as: UTF8.self)) ?? "<unencodable JSON>"
    }
}
