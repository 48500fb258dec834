import Foundation

extension CacheHeaders {
    /// The fields ``CacheHeaders`` reads.
    enum KnownField {
        case cacheControl, etag, lastModified, age, date, expires, vary
    }

    /// Which known field `name` is, matched without regard to ASCII case, without allocating.
    static func knownField(_ name: String) -> KnownField? {
        let utf8 = name.utf8
        switch utf8.count {
        case 3: return equalsIgnoringCase(utf8, "age") ? .age : nil
        case 4:
            if equalsIgnoringCase(utf8, "etag") { return .etag }
            if equalsIgnoringCase(utf8, "date") { return .date }
            if equalsIgnoringCase(utf8, "vary") { return .vary }
            return nil
        case 7: return equalsIgnoringCase(utf8, "expires") ? .expires : nil
        case 13:
            if equalsIgnoringCase(utf8, "cache-control") { return .cacheControl }
            if equalsIgnoringCase(utf8, "last-modified") { return .lastModified }
            return nil
        default: return nil
        }
    }

    /// True when `bytes` spell `lowercase` (ASCII, lower-case) without regard to case.
    static func equalsIgnoringCase(_ bytes: String.UTF8View, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { lowered($0) == $1 }
        }
    }

    /// `byte` with ASCII upper-case letters lowered.
    static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// `value` without leading and trailing spaces and tabs (OWS).
    static func trimmed(_ value: String) -> Substring {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = value.firstIndex(where: { !isOWS($0) }) else { return "" }
        let last = value.lastIndex(where: { !isOWS($0) })!
        return value[first...last]
    }

    /// A validator (`ETag`, `Last-Modified`) kept verbatim when it can be sent back: trimmed,
    /// non-empty, at most ``maximumFieldLength`` bytes, no control character (checked on unicode
    /// scalars, so no CR, LF or NUL reaches a request).
    static func validatorText(_ value: String) -> String? {
        guard value.utf8.count <= maximumFieldLength else { return nil }
        let text = trimmed(value)
        guard !text.isEmpty,
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return String(text)
    }

    /// The `Age` value: the first member of a list, delta-seconds, else 0 (RFC 9111 §5.1).
    static func ageValue(_ value: String) -> Int {
        let bytes = value.utf8.prefix(maximumFieldLength)
        let member = bytes.prefix { $0 != UInt8(ascii: ",") }
        return CacheControlDirectives.deltaSeconds(trimmingOWS(member)) ?? 0
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmingOWS<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Bytes.SubSequence
    where Bytes.Element == UInt8 {
        let isOWS: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let start = bytes.drop(while: isOWS)
        guard let last = start.lastIndex(where: { !isOWS($0) }) else { return start[start.endIndex...] }
        return start[...last]
    }

    /// Adds the names of one `Vary` field to `names` (lower-cased, each once). Returns false when
    /// the field means "varies on everything": `*`, a name that is not a token, a value longer
    /// than ``maximumFieldLength`` or more than ``maximumDirectives`` names in all.
    static func readVary(_ value: String, into names: inout [String]) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count <= maximumFieldLength else { return false }
        for member in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let name = trimmingOWS(member)
            if name.isEmpty { continue }
            guard name.allSatisfy(CacheControlDirectives.isTokenByte) else { return false }
            let lowered = String(decoding: name.map(Self.lowered), as: UTF8.self)
            if lowered == "*" { return false }
            if !names.contains(lowered) {
                guard names.count < maximumDirectives else { return false }
                names.append(lowered)
            }
        }
        return true
    }
}
