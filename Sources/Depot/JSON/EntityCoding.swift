import Foundation

/// How `Codable` entities are read from and written to JSON: the spelling of dates and of keys.
///
/// Set it on ``RepositoryConfiguration/coding``; every road of the repository uses it (reads,
/// pulls, write answers, outbox payloads, the batch, the incremental cursor's rows, the stored
/// copies), so the store keeps the server's own spelling. Hand-mapped entities
/// (`DictionaryInitializable` with their own `init(dictionary:)`) are not affected.
///
/// ```swift
/// var configuration = RepositoryConfiguration()
/// configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
/// // {"updated_at": "2026-11-28T19:28:05.981Z"} reads as `var updatedAt: Date`
/// ```
public struct EntityCoding: Sendable, Hashable {
    /// How `Date` values are spelled.
    public var dates: DateCoding
    /// How property names map to JSON keys.
    public var keys: KeyCoding

    /// Makes the options.
    ///
    /// - Parameters:
    ///   - dates: how dates are spelled; `Foundation`'s default (seconds since 2001) unless told.
    ///   - keys: how keys are spelled; the property names as written unless told.
    public init(dates: DateCoding = .deferredToDate, keys: KeyCoding = .asWritten) {
        self.dates = dates
        self.keys = keys
    }

    /// `Foundation`'s defaults: what Depot used before these options existed.
    public static let `default` = EntityCoding()

    /// A fresh decoder with these options (the shared one for ``default``).
    func decoder() -> JSONDecoder {
        if self == .default { return JSONMapping.decoder }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dates.decodingStrategy
        if keys == .snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        return decoder
    }

    /// A fresh encoder with these options, keys sorted (the shared one for ``default``).
    func encoder() -> JSONEncoder {
        if self == .default { return JSONMapping.encoder }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = dates.encodingStrategy
        if keys == .snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        return encoder
    }

    /// The JSON key a property named `name` is written under.
    func key(_ name: String) -> String {
        keys == .snakeCase ? KeyCoding.snakeCased(name) : name
    }
}

/// How a `Date` is spelled in JSON.
public struct DateCoding: Sendable, Hashable {
    enum Form: Sendable, Hashable {
        case deferredToDate
        case iso8601(fractionalSeconds: Bool, zone: TimeZone)
        case secondsSince1970
        case millisecondsSince1970
    }

    let form: Form

    /// `Foundation`'s default: a number of seconds since 1 January 2001.
    public static let deferredToDate = DateCoding(form: .deferredToDate)

    /// ISO 8601 / RFC 3339 text: ``iso8601(fractionalSeconds:zonelessStampsIn:)`` with its
    /// defaults (reads any stamp, writes milliseconds or microseconds and `Z`).
    public static let iso8601 = iso8601()

    /// ISO 8601 / RFC 3339 text, as Django REST Framework, FastAPI, Rails and most servers write.
    ///
    /// Reads `2026-11-28T19:28:05Z`, `2026-11-28T19:28:05.981Z`, `2026-11-28T19:28:05.981234+01:00`,
    /// a space in place of the `T`, and a stamp without a zone (`2026-11-28T19:28:05.981234`, as a
    /// naive Python datetime prints), read in `zone`. Writes UTC with `Z`.
    ///
    /// - Parameters:
    ///   - fractionalSeconds: whether written stamps carry the fraction of a second (3 digits, 6
    ///     when the date has microseconds); reading accepts both.
    ///   - zone: the zone a stamp without one is read in; UTC unless told.
    /// - Returns: the date coding.
    public static func iso8601(
        fractionalSeconds: Bool = true, zonelessStampsIn zone: TimeZone = TimeZone(identifier: "UTC")!
    ) -> DateCoding {
        DateCoding(form: .iso8601(fractionalSeconds: fractionalSeconds, zone: zone))
    }

    /// A number of seconds since 1 January 1970 (Unix time).
    public static let secondsSince1970 = DateCoding(form: .secondsSince1970)

    /// A number of milliseconds since 1 January 1970 (JavaScript's `Date.now()`).
    public static let millisecondsSince1970 = DateCoding(form: .millisecondsSince1970)

    var decodingStrategy: JSONDecoder.DateDecodingStrategy {
        switch form {
        case .deferredToDate: return .deferredToDate
        case .secondsSince1970: return .secondsSince1970
        case .millisecondsSince1970: return .millisecondsSince1970
        case .iso8601(_, let zone):
            return .custom { decoder in
                let container = try decoder.singleValueContainer()
                let text = try container.decode(String.self)
                guard let date = ISO8601Stamp.date(text, zonelessIn: zone) else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "expected an ISO 8601 date, found \"\(text.prefix(40))\"")
                }
                return date
            }
        }
    }

    var encodingStrategy: JSONEncoder.DateEncodingStrategy {
        switch form {
        case .deferredToDate: return .deferredToDate
        case .secondsSince1970: return .secondsSince1970
        case .millisecondsSince1970: return .millisecondsSince1970
        case .iso8601(let fractionalSeconds, _):
            return .custom { date, encoder in
                guard let text = ISO8601Stamp.text(date, fractionalSeconds: fractionalSeconds) else {
                    throw EncodingError.invalidValue(
                        date,
                        EncodingError.Context(
                            codingPath: encoder.codingPath, debugDescription: "a date outside years 1–9999"))
                }
                var container = encoder.singleValueContainer()
                try container.encode(text)
            }
        }
    }
}

/// How property names map to JSON keys.
public enum KeyCoding: Sendable, Hashable {
    /// The property names (or `CodingKeys`) as written.
    case asWritten
    /// `updatedAt` is written and read as `updated_at` (`JSONEncoder`'s `convertToSnakeCase`).
    case snakeCase

    /// `name` in snake case, split as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` splits:
    /// before an upper-case letter that follows a lower-case one, and before the last of a run of
    /// upper-case letters that a lower-case one follows (`myURLValue` → `my_url_value`).
    static func snakeCased(_ name: String) -> String {
        guard !name.isEmpty else { return name }
        let characters = Array(name)
        var words: [String] = []
        var start = 0
        var index = 1
        while index < characters.count {
            let current = characters[index]
            let previous = characters[index - 1]
            if current.isUppercase {
                if !previous.isUppercase {
                    words.append(String(characters[start..<index]))
                    start = index
                } else if index + 1 < characters.count, characters[index + 1].isLowercase {
                    words.append(String(characters[start..<index]))
                    start = index
                }
            }
            index += 1
        }
        words.append(String(characters[start...]))
        return words.map { $0.lowercased() }.joined(separator: "_")
    }
}
