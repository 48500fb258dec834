/// The directives of one response's `Cache-Control` fields (RFC 9111 §5.2), read byte by byte with
/// bounded work: what ``CacheHeaders`` keeps of them.
struct CacheControlDirectives {
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    var maxAge: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?
    /// The directives read so far, across fields.
    var count = 0
    /// True when a field was longer than ``CacheHeaders/maximumFieldLength``, had more directives
    /// than ``CacheHeaders/maximumDirectives`` or came after ``CacheHeaders/maximumCacheControlFields``
    /// fields: what was cut off is unknown.
    var overflowed = false

    /// Reads one `Cache-Control` field value.
    mutating func parse(_ value: String) {
        var bytes = Array(value.utf8)
        if bytes.count > CacheHeaders.maximumFieldLength {
            overflowed = true
            bytes.removeSubrange(CacheHeaders.maximumFieldLength...)
        }
        var index = 0
        while index < bytes.count {
            // Skip empty list members and whitespace.
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                index += 1
                continue
            }
            let (directive, next) = Self.directive(in: bytes, from: index)
            index = next
            guard let directive else { continue }
            count += 1
            guard count <= CacheHeaders.maximumDirectives else {
                overflowed = true
                return
            }
            apply(name: directive.name, argument: directive.argument)
        }
    }

    /// Records one directive. Names are lower-cased already; unknown ones are ignored.
    mutating func apply(name: [UInt8], argument: [UInt8]?) {
        switch String(decoding: name, as: UTF8.self) {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        case "private": isPrivate = true
        case "max-age": maxAge = Self.smallest(maxAge, Self.deltaSeconds(argument ?? []) ?? 0)
        case "stale-while-revalidate":
            staleWhileRevalidate = Self.smallest(staleWhileRevalidate, Self.deltaSeconds(argument ?? []) ?? 0)
        case "stale-if-error":
            staleIfError = Self.smallest(staleIfError, Self.deltaSeconds(argument ?? []) ?? 0)
        default: break
        }
    }

    /// The smaller of a value read before (if any) and a new one: duplicates keep the most
    /// restrictive.
    static func smallest(_ old: Int?, _ new: Int) -> Int { min(old ?? new, new) }

    /// One directive starting at `start` (a non-separator byte): its lower-cased name and its
    /// argument (a token, or a quoted-string unescaped), and the index after it. A directive with
    /// an unbalanced quote or bytes after its argument keeps its name with an empty (invalid)
    /// argument; one with no name is nil. Either way its bytes up to the next comma outside quotes
    /// are skipped.
    static func directive(in bytes: [UInt8], from start: Int) -> (
        directive: (name: [UInt8], argument: [UInt8]?)?, next: Int
    ) {
        var index = start
        var name: [UInt8] = []
        while index < bytes.count, isTokenByte(bytes[index]) {
            name.append(CacheHeaders.lowered(bytes[index]))
            index += 1
        }
        index = skipOWS(bytes, index)
        var argument: [UInt8]?
        if !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") {
            index = skipOWS(bytes, index + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                guard let (text, next) = quotedString(bytes, from: index) else {
                    // An unbalanced quote: the rest of the field is its text, an invalid argument.
                    return ((name, []), bytes.count)
                }
                argument = text
                index = next
            } else {
                var token: [UInt8] = []
                while index < bytes.count, isTokenByte(bytes[index]) {
                    token.append(bytes[index])
                    index += 1
                }
                argument = token
            }
            index = skipOWS(bytes, index)
        }
        if name.isEmpty { return (nil, skipToComma(bytes, index)) }
        if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
            // Bytes after the argument: the directive counts, with an invalid argument (a flag
            // stays on, a delta-seconds is stale).
            return ((name, []), skipToComma(bytes, index))
        }
        return ((name, argument), index)
    }

    /// The unescaped text of the quoted-string opening at `start`, and the index after its closing
    /// quote; nil when it never closes.
    static func quotedString(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int)? {
        var text: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return (text, index + 1)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                text.append(bytes[index + 1])
                index += 2
            default:
                text.append(bytes[index])
                index += 1
            }
        }
        return nil
    }

    /// The index of the next comma outside a quoted-string at or after `start`, or the end.
    static func skipToComma(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        var quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            if quoted, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, byte == UInt8(ascii: ",") { return index }
            index += 1
        }
        return bytes.count
    }

    /// The index of the first byte at or after `start` that is not a space or tab.
    static func skipOWS(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
        return index
    }

    /// True for a `tchar` (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A delta-seconds (`1*DIGIT`, RFC 9111 §1.2.2): nil when `bytes` are empty or hold anything
    /// but ASCII digits; a value too large to hold becomes ``CacheHeaders/maximumDeltaSeconds``.
    static func deltaSeconds<Bytes: Collection>(_ bytes: Bytes) -> Int? where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if value < CacheHeaders.maximumDeltaSeconds {
                value = min(value * 10 + Int(byte - UInt8(ascii: "0")), CacheHeaders.maximumDeltaSeconds)
            }
        }
        return value
    }
}
