import Foundation

/// A session's base URL, parsed once, so a request's URL is one string joined and parsed rather
/// than a `URLComponents` round trip per request.
///
/// The fast path covers a base with a scheme and a host but no query or fragment, and a request
/// whose path and query hold only characters a URL keeps as they are (what Depot's own paths and
/// encoded queries are made of). Anything else goes through ``NetworkRequest/url(relativeTo:)``,
/// which the fast path matches character for character (a test holds them to it).
struct BaseURLParts: Sendable {
    /// The base URL.
    let url: URL
    /// The base as a string up to its path, without a trailing slash (`http://host:8080/v1`);
    /// nil when requests must take the slow path.
    let prefix: String?

    init(_ url: URL) {
        self.url = url
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            components.scheme != nil, components.host != nil,
            components.percentEncodedQuery == nil, components.percentEncodedFragment == nil
        else {
            prefix = nil
            return
        }
        var path = components.percentEncodedPath
        if path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = ""
        guard let root = components.string, Self.isPlain(path, query: false) else {
            prefix = nil
            return
        }
        prefix = root + path
    }

    /// True when every byte of `text` is kept as is in a path (or a query): ASCII letters, digits,
    /// `-._~!$&'()*+,;=:@/`, and `%` followed by two hex digits; `?` too in a query.
    static func isPlain(_ text: String, query: Bool) -> Bool {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = utf8.next(), let low = utf8.next(), isHex(high), isHex(low) else { return false }
            } else if !isPlain(byte, query: query) {
                return false
            }
        }
        return true
    }

    /// True for a byte a path (or a query) keeps as it is; `%` is true here and only valid as the
    /// start of an escape.
    static func isPlain(_ byte: UInt8, query: Bool) -> Bool {
        byte == UInt8(ascii: "?") ? query : plainBytes[Int(byte)]
    }

    /// Indexed by byte: ASCII letters, digits, `-._~!$&'()*+,;=:@/` and `%`.
    private static let plainBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/%".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    /// True for an ASCII hex digit.
    static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }
}

extension NetworkRequest {
    /// The full URL below `base`: the same URL as ``url(relativeTo:)`` gives for `base.url`.
    ///
    /// - Throws: `DepotError` `.invalidRequest` when no URL can be made.
    func url(relativeTo base: BaseURLParts) throws -> URL {
        guard let prefix = base.prefix else { return try url(relativeTo: base.url) }
        let relativePath = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard BaseURLParts.isPlain(relativePath, query: false) else {
            return try url(relativeTo: base.url)
        }
        var string = prefix
        if !relativePath.isEmpty {
            string += "/"
            string += relativePath
        }
        if let serverQuery {
            string += "?" + serverQuery
        } else if !query.isEmpty {
            var separator = "?"
            for item in query {
                string += separator
                string += Self.encodeQuery(item.name)
                if let value = item.value {
                    string += "="
                    string += Self.encodeQuery(value)
                }
                separator = "&"
            }
        }
        guard let url = URL(string: string) else { return try url(relativeTo: base.url) }
        return url
    }
}
