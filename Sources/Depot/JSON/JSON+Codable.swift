import Foundation

extension JSON: Codable {
    /// Reads any JSON value, keeping integers apart from doubles.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode(JSONObject.self))
        }
    }

    /// Writes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON {
    /// Parses JSON text.
    ///
    /// - Throws: `DepotError` with code `DepotError/Code/decoding` naming where the text is wrong.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }

    /// The value as compact JSON text with sorted keys.
    ///
    /// - Throws: `DepotError` with code `DepotError/Code/encoding` for a non-finite double.
    public func serialized() throws -> Data {
        try JSONWriter.write(self)
    }
}
