import Foundation

/// A type that can be made from a JSON object: hand-mapped entities conform to it.
/// `Codable` entities need not: Depot maps them through their `Codable` conformance.
///
/// ```swift
/// struct Note: Identifiable, Sendable, DictionaryInitializable, DictionaryRepresentable {
///     var id: String; var body: String
///     init(dictionary: JSONObject) throws {
///         id = try dictionary.value("_id"); body = try dictionary.value("body")
///     }
///     var dictionary: JSONObject { ["_id": .string(id), "body": .string(body)] }
/// }
/// ```
public protocol DictionaryInitializable {
    /// Makes the value from a JSON object.
    ///
    /// - Throws: `DepotError` with code `DepotError/Code/decoding` naming the key and type.
    init(dictionary: JSONObject) throws
}

/// A type that can be written as a JSON object.
public protocol DictionaryRepresentable {
    /// The value as a JSON object.
    var dictionary: JSONObject { get }
}

extension DictionaryInitializable where Self: Decodable {
    /// Maps through `Decodable`: a `Codable` type that declares conformance gets this for free.
    /// Dates and keys are read as the repository's ``RepositoryConfiguration/coding`` says when
    /// Depot maps the entity.
    public init(dictionary: JSONObject) throws {
        self = try JSONMapping.decode(Self.self, from: .object(dictionary), coding: JSONMapping.currentCoding)
    }
}

extension DictionaryRepresentable where Self: Encodable {
    /// Maps through `Encodable`: a `Codable` type that declares conformance gets this for free.
    ///
    /// A value whose encoding fails, or that does not encode to an object, gives an empty object
    /// here: this property cannot throw. Depot's own writes never send that empty object: they
    /// encode the value with ``JSONMapping/object(_:coding:)``, which rejects with `DepotError`
    /// `.encoding` instead.
    public var dictionary: JSONObject {
        do {
            return try JSONMapping.encodedObject(self, coding: JSONMapping.currentCoding)
        } catch {
            let failure = error as? DepotError ?? DepotError(.encoding, "\(error)", underlying: error)
            JSONMapping.encodingFailure?.withLock { $0 = $0 ?? failure }
            return [:]
        }
    }
}

/// An id that can stand as one path component of a URL: `String`, `Int`, `Int64`, `UUID`.
public protocol PathComponentConvertible: Sendable, Hashable {
    /// The id as text, before percent-encoding.
    var pathComponent: String { get }
}

extension String: PathComponentConvertible {
    /// The string itself.
    public var pathComponent: String { self }
}

extension Int: PathComponentConvertible {
    /// The decimal digits.
    public var pathComponent: String { String(self) }
}

extension Int64: PathComponentConvertible {
    /// The decimal digits.
    public var pathComponent: String { String(self) }
}

extension UUID: PathComponentConvertible {
    /// The UUID string.
    public var pathComponent: String { uuidString }
}

extension JSONObject {
    /// The value at `key`, converted to `T`.
    ///
    /// - Throws: `DepotError` `.decoding` naming the key, the expected type and what was found.
    public func value<T: JSONValueConvertible>(_ key: String, as type: T.Type = T.self) throws -> T {
        guard let json = self[key] else {
            throw DepotError(.decoding, "\(key): expected \(T.self), found nothing (missing key)")
        }
        guard let value = T(json: json) else {
            throw DepotError(.decoding, "\(key): expected \(T.self), found \(json.kindName)")
        }
        return value
    }

    /// The value at `key` converted to `T`, or nil when the key is missing or null.
    ///
    /// - Throws: `DepotError` `.decoding` when the value is there but of the wrong type.
    public func optionalValue<T: JSONValueConvertible>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let json = self[key], json != .null else { return nil }
        return try value(key, as: type)
    }
}

/// A Swift type a JSON value can convert to, for hand-mapped entities.
public protocol JSONValueConvertible {
    /// Converts, or nil when `json` is of another kind.
    init?(json: JSON)
    /// The value as JSON.
    var json: JSON { get }
}

extension String: JSONValueConvertible {
    /// A JSON string.
    public init?(json: JSON) { guard let value = json.stringValue else { return nil }; self = value }
    /// As a JSON string.
    public var json: JSON { .string(self) }
}

extension Int: JSONValueConvertible {
    /// A JSON integer that fits.
    public init?(json: JSON) { guard let value = json.intValue else { return nil }; self = value }
    /// As a JSON integer.
    public var json: JSON { .integer(Int64(self)) }
}

extension Int64: JSONValueConvertible {
    /// A JSON integer.
    public init?(json: JSON) { guard let value = json.int64Value else { return nil }; self = value }
    /// As a JSON integer.
    public var json: JSON { .integer(self) }
}

extension Double: JSONValueConvertible {
    /// A JSON number.
    public init?(json: JSON) { guard let value = json.doubleValue else { return nil }; self = value }
    /// As a JSON double.
    public var json: JSON { .double(self) }
}

extension Bool: JSONValueConvertible {
    /// A JSON boolean.
    public init?(json: JSON) { guard let value = json.boolValue else { return nil }; self = value }
    /// As a JSON boolean.
    public var json: JSON { .bool(self) }
}

extension UUID: JSONValueConvertible {
    /// A JSON string holding a UUID.
    public init?(json: JSON) {
        guard let value = json.stringValue.flatMap(UUID.init(uuidString:)) else { return nil }; self = value
    }
    /// As a JSON string.
    public var json: JSON { .string(uuidString) }
}

extension JSON: JSONValueConvertible {
    /// Any JSON value.
    public init?(json: JSON) { self = json }
    /// Itself.
    public var json: JSON { self }
}
