import Foundation

/// Maps entities to and from JSON, through `DictionaryInitializable`/`DictionaryRepresentable` when
/// the type conforms, else through `Codable`. Every failure is a `DepotError` that names the key
/// path and the expected type.
public enum JSONMapping {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The decoder for answers without an envelope, shared: JSONDecoder is thread-safe and a fresh
    /// one per call cost 3 allocations and ~2 µs per request.
    static let decoder = JSONDecoder()

    /// The coding-user-info key that tells ``Enveloped`` which member to unwrap.
    static let envelopeKey = CodingUserInfoKey(rawValue: "depot.envelope")!

    /// The coding options of the mapping under way, read by the `Codable` defaults of
    /// ``DictionaryInitializable/init(dictionary:)`` and ``DictionaryRepresentable/dictionary``
    /// (set around each call, synchronously, by ``entity(_:from:coding:)`` and ``object(_:coding:)``).
    @TaskLocal static var currentCoding = EntityCoding.default

    /// Decodes a `Decodable` type from a JSON value, with `coding`'s date and key options.
    public static func decode<T: Decodable>(_ type: T.Type, from json: JSON, coding: EntityCoding = .default) throws
        -> T
    {
        try decode(type, from: try json.serialized(), coding: coding)
    }

    /// Decodes a `Decodable` type from JSON bytes, unwrapping `envelope` first when given, with
    /// `coding`'s date and key options.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, envelope: String? = nil, coding: EntityCoding = .default
    ) throws -> T {
        do {
            if let envelope {
                let decoder = coding == .default ? JSONDecoder() : coding.decoder()
                decoder.userInfo[envelopeKey] = envelope
                return try decoder.decode(Enveloped<T>.self, from: data).value
            }
            return try coding.decoder().decode(type, from: data)
        } catch let error as DepotError {
            throw error
        } catch {
            throw DepotError(.decoding, "cannot read \(T.self): \(describe(error))", underlying: error)
        }
    }

    /// Encodes an `Encodable` value as a JSON value, with `coding`'s date and key options.
    public static func encode<T: Encodable>(_ value: T, coding: EntityCoding = .default) throws -> JSON {
        let data: Data
        do {
            data = try coding.encoder().encode(value)
        } catch {
            throw DepotError(.encoding, "cannot write \(T.self): \(error)", underlying: error)
        }
        return try JSON(parsing: data)
    }

    /// Makes an entity from a JSON value (a `Codable` one with `coding`'s options).
    public static func entity<Entity>(_ type: Entity.Type, from json: JSON, coding: EntityCoding = .default) throws
        -> Entity
    {
        if let mapped = type as? any DictionaryInitializable.Type {
            guard let object = json.objectValue else {
                throw DepotError(.decoding, "expected an object for \(Entity.self), found \(json.kindName)")
            }
            do {
                return try $currentCoding.withValue(coding) { try mapped.init(dictionary: object) as! Entity }
            } catch let error as DepotError {
                throw error
            } catch {
                throw DepotError(.decoding, "cannot read \(Entity.self): \(describe(error))", underlying: error)
            }
        }
        if let decodable = type as? any Decodable.Type {
            return try decode(decodable, from: json, coding: coding) as! Entity
        }
        unreadable(type)
    }

    /// Makes an entity from JSON bytes, unwrapping `envelope` first when given (a `Codable` one
    /// with `coding`'s options).
    public static func entity<Entity>(
        _ type: Entity.Type, from data: Data, envelope: String? = nil, coding: EntityCoding = .default
    ) throws -> Entity {
        if type is any DictionaryInitializable.Type {
            return try entity(type, from: try unwrap(JSON(parsing: data), envelope: envelope), coding: coding)
        }
        if let decodable = type as? any Decodable.Type {
            return try decode(decodable, from: data, envelope: envelope, coding: coding) as! Entity
        }
        unreadable(type)
    }

    /// Makes an array of entities from JSON bytes, unwrapping `envelope` first when given (`Codable`
    /// ones with `coding`'s options).
    public static func entities<Entity>(
        _ type: Entity.Type, from data: Data, envelope: String? = nil, coding: EntityCoding = .default
    ) throws -> [Entity] {
        if type is any DictionaryInitializable.Type {
            let json = try unwrap(JSON(parsing: data), envelope: envelope)
            guard let array = json.arrayValue else {
                throw DepotError(.decoding, "expected an array of \(Entity.self), found \(json.kindName)")
            }
            return try array.enumerated().map { index, element in
                do {
                    return try entity(type, from: element, coding: coding)
                } catch var error as DepotError {
                    error.message = "[\(index)]: " + error.message
                    throw error
                }
            }
        }
        if let decodable = type as? any Decodable.Type {
            return try decodeArray(decodable, as: type, from: data, envelope: envelope, coding: coding)
        }
        unreadable(type)
    }

    private static func unreadable<Entity>(_ type: Entity.Type) -> Never {
        preconditionFailure("\(Entity.self) must be Decodable or DictionaryInitializable to be read from JSON")
    }

    /// Decodes `[T]` and hands it back as `[Entity]`, which it is (`T` is `Entity` opened as
    /// `Decodable`). Not `as! [Entity]`: that cast copies the array, casting element by element
    /// (a tenth of the whole decoding time for 1,000 small entities).
    private static func decodeArray<T: Decodable, Entity>(
        _ type: T.Type, as entity: Entity.Type, from data: Data, envelope: String?, coding: EntityCoding
    ) throws -> [Entity] {
        precondition(T.self == Entity.self, "decodeArray opens Entity itself")
        return unsafeBitCast(try decode([T].self, from: data, envelope: envelope, coding: coding), to: [Entity].self)
    }

    /// Writes an entity as a JSON object (a `Codable` one with `coding`'s options).
    ///
    /// - Throws: `DepotError` `.encoding` when an `Encodable` entity fails to encode or does not
    ///   encode to an object, also when it gets ``DictionaryRepresentable/dictionary`` from its
    ///   `Encodable` conformance (which gives `{}` on failure: that `{}` is never sent).
    public static func object<Entity>(_ entity: Entity, coding: EntityCoding = .default) throws -> JSONObject {
        if let object = entity as? JSONObject { return object }
        if let mapped = entity as? any DictionaryRepresentable {
            guard entity is any Encodable else { return mapped.dictionary }
            // The dictionary may be the `Encodable` default, which reports its failure here.
            let failure = LockedValue<DepotError?>(nil)
            let object = $encodingFailure.withValue(failure) { $currentCoding.withValue(coding) { mapped.dictionary } }
            if let error = failure.withLock({ $0 }) { throw error }
            return object
        }
        guard let encodable = entity as? any Encodable else {
            preconditionFailure("\(Entity.self) must be Encodable or DictionaryRepresentable to be written as JSON")
        }
        return try encodedObject(encodable, coding: coding)
    }

    /// Where the `Encodable` default of ``DictionaryRepresentable/dictionary`` reports a failure
    /// while ``object(_:)`` reads it.
    @TaskLocal static var encodingFailure: LockedValue<DepotError?>?

    /// `value` encoded, as a JSON object.
    ///
    /// - Throws: `DepotError` `.encoding` when encoding fails or gives something else than an object.
    static func encodedObject<Value: Encodable>(_ value: Value, coding: EntityCoding = .default) throws -> JSONObject {
        let json = try encode(value, coding: coding)
        guard let object = json.objectValue else {
            throw DepotError(.encoding, "\(Value.self) does not encode to a JSON object but to \(json.kindName)")
        }
        return object
    }

    /// The top-level keys `value` writes as nil (see ``NilKeyEncoder``).
    ///
    /// - Throws: `DepotError` `.encoding` when `value.encode(to:)` throws.
    static func nilKeys<Value: Encodable>(of value: Value, coding: EntityCoding = .default) throws -> [String] {
        do {
            return try NilKeyEncoder.nilKeys(of: value).map(coding.key)
        } catch {
            throw DepotError(.encoding, "cannot write \(Value.self): \(error)", underlying: error)
        }
    }

    /// The member `envelope` of `json`, or `json` itself when `envelope` is nil.
    public static func unwrap(_ json: JSON, envelope: String?) throws -> JSON {
        guard let envelope else { return json }
        guard let inner = json[envelope] else {
            throw DepotError(.decoding, "expected an object with key \"\(envelope)\", found \(json.kindName)")
        }
        return inner
    }

    /// Describes a DecodingError as "key.path[2].name: expected String, found number".
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.reduce(into: "") { text, key in
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text.isEmpty ? "(top level)" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type), \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "(top level)" ? "" : parent + ".")\(key.stringValue): missing key"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Decodes `T` from the member of an object named by the decoder's envelope user-info key.
struct Enveloped<T: Decodable>: Decodable {
    let value: T

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let key = Key(stringValue: decoder.userInfo[JSONMapping.envelopeKey] as? String ?? "data")
        let container = try decoder.container(keyedBy: Key.self)
        value = try container.decode(T.self, forKey: key)
    }
}
