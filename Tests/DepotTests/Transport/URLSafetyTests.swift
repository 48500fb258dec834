import DepotTesting
import Foundation
import Testing

@testable import Depot

/// Paths, ids and queries from data: a URL or a `DepotError`, never a trap, and never the
/// collection itself addressed by an empty id.
@Suite struct URLSafetyTests {
    static let base = URL(string: "http://127.0.0.1:8080/api")!

    @Test(
        "a path with characters a URL cannot hold is percent-encoded; valid escapes are kept",
        arguments: [
            ("households/Ann Lee/people", "households/Ann%20Lee/people"),
            ("households/50%/people", "households/50%25/people"), ("a?b#c", "a%3Fb%23c"),
            ("h/é✓/p", "h/%C3%A9%E2%9C%93/p"), ("tab\there\u{0}", "tab%09here%00"),
            ("already%20encoded/%E2%9C%93", "already%20encoded/%E2%9C%93"), ("%zz%4", "%25zz%254"),
            ("[x]{y}|\\^`\"<>", "%5Bx%5D%7By%7D%7C%5C%5E%60%22%3C%3E"),
        ])
    func encodesPath(path: String, encoded: String) throws {
        let request = NetworkRequest(method: .get, path: path)
        let url = try request.url(relativeTo: Self.base)
        #expect(url.absoluteString == "http://127.0.0.1:8080/api/" + encoded)
        #expect(try request.url(relativeTo: BaseURLParts(Self.base)) == url)
    }

    @Test("an empty id is refused before any request, on every operation that takes one")
    func emptyID() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let dictionaries = DictionaryRepository(store: NetworkingSession(url: server.url), path: "messages")
            // When
            var errors: [DepotError?] = []
            errors.append(await #expect(throws: DepotError.self) { try await messages.read("").value })
            errors.append(await #expect(throws: DepotError.self) { try await messages.delete(id: "").value })
            errors.append(
                await #expect(throws: DepotError.self) {
                    try await messages.update(Message(id: "", text: "x")).value
                })
            errors.append(await #expect(throws: DepotError.self) { try await dictionaries.delete(id: "").value })
            // Then
            #expect(errors.count == 4)
            for error in errors { #expect(error?.code == .invalidRequest) }
            #expect(server.requests.isEmpty, "nothing may reach the server: DELETE /messages/ clears the collection")
        }
    }

    @Test("ids . and .. are encoded as %2E and never climb out of the collection")
    func dotIDs() async throws {
        try await withStubServer { server in
            server.route(.get, "/messages/:id", response: .json(["id": "x", "text": "t"]))
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            _ = try await messages.read(".").value
            _ = try await messages.read("..").value
            #expect(server.requests.map(\.rawPath) == ["/messages/%2E", "/messages/%2E%2E"])
        }
    }

    @Test("a repository path built from data reaches the server encoded instead of crashing")
    func pathFromData() async throws {
        try await withStubServer { server in
            // Given
            let name = "Ann Lee 50% ?#✓"
            server.route(.get, "/households/\(name)/people", response: .json([["id": "1", "text": "a"]]))
            let people = DictionaryRepository(
                store: NetworkingSession(url: server.url), path: "households/\(name)/people")
            // When
            let all = try await people.readAll(query: ["q": "a&b=c #"]).value
            // Then
            #expect(all.count == 1)
            let request = try #require(server.requests.first)
            #expect(request.path == "/households/\(name)/people")
            #expect(request.rawPath == "/households/Ann%20Lee%2050%25%20%3F%23%E2%9C%93/people")
            #expect(request.query == ["q": "a&b=c #"])
        }
    }

    /// 5,000 rounds in the README suite; CI's fuzz step runs 200,000 (`DEPOT_FUZZ_ROUNDS`).
    @Test("5,000 random paths, ids and queries (DEPOT_FUZZ_ROUNDS) make a URL that decodes back, or a DepotError")
    func fuzz() throws {
        var generator = SplitMix64(seed: 0x5EED_D390)
        let parts = BaseURLParts(Self.base)
        let route = Route(.get, "people/:id")
        // Mismatches are collected and checked once: many rounds of `#expect` cost seconds in debug.
        var failures: [String] = []
        let rounds = ProcessInfo.processInfo.environment["DEPOT_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 5_000
        for _ in 0..<max(rounds, 1) {
            let text = Self.randomString(using: &generator)
            let label = text.debugDescription
            // As a path.
            let pathRequest = NetworkRequest(method: .get, path: text)
            do {
                let slow = try pathRequest.url(relativeTo: Self.base)
                if try pathRequest.url(relativeTo: parts) != slow { failures.append("path fast ≠ slow: \(label)") }
                let relative = text.hasPrefix("/") ? String(text.dropFirst()) : text
                let expected = relative.isEmpty ? "/api" : "/api/" + relative
                if !Self.hasValidEscape(text), Self.decodedPath(slow) != expected {
                    failures.append("path round trip: \(label)")
                }
            } catch is DepotError {}
            // As an id: only the empty id is refused.
            do {
                let path = try route.checkedPath(id: text)
                let url = try NetworkRequest(method: .get, path: path).url(relativeTo: parts)
                if text.isEmpty { failures.append("empty id accepted") }
                if Self.decodedPath(url) != "/api/people/" + text { failures.append("id round trip: \(label)") }
            } catch let error as DepotError {
                if !text.isEmpty || error.code != .invalidRequest { failures.append("id \(label): \(error)") }
            }
            // As a query name and value.
            let queryRequest = NetworkRequest(
                method: .get, path: "people", query: [URLQueryItem(name: text, value: text)])
            do {
                let url = try queryRequest.url(relativeTo: parts)
                if try queryRequest.url(relativeTo: Self.base) != url { failures.append("query fast ≠ slow: \(label)") }
                let query = url.absoluteString.split(separator: "?", maxSplits: 1).last ?? ""
                let item = query.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if item.map({ Self.decode(String($0)) }) != [text, text] {
                    failures.append("query round trip: \(label)")
                }
            } catch is DepotError {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(10))")
    }

    /// The URL's path, percent-decoded.
    static func decodedPath(_ url: URL) -> String? {
        let string = url.absoluteString
        guard string.hasPrefix("http://127.0.0.1:8080") else { return nil }
        return decode(String(string.dropFirst("http://127.0.0.1:8080".count)))
    }

    /// `text` percent-decoded byte for byte (Foundation's decoding drops a leading U+FEFF), or nil
    /// for a `%` without two hex digits.
    static func decode(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                    let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// True when `text` holds `%` and two hex digits, which a path keeps as an escape.
    static func hasValidEscape(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.indices.contains { index in
            bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count
                && BaseURLParts.isHex(bytes[index + 1]) && BaseURLParts.isHex(bytes[index + 2])
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    static let alphabet: [String] = [
        "a", "Z", "0", "9", "-", "_", ".", "~", " ", "%", "%4", "%41", "%zz", "?", "#", "/", "//", "&", "=", "+",
        ";", ":", "@", "!", "$", "'", "(", ")", "*", ",", "[", "]", "{", "}", "|", "\\", "^", "`", "\"", "<", ">",
        "é", "e\u{301}", "ß", "中", "👍🏽", "🇫🇷", "👨‍👩‍👧", "\u{0}", "\u{1}", "\u{7F}", "\u{85}", "\n", "\r", "\t",
        "\u{FEFF}", "\u{202E}", "\u{200B}", "\u{FFFF}", "\u{10FFFF}", "..", ":id",
    ]

    static func randomString(using generator: inout SplitMix64) -> String {
        let count = Int.random(in: 0...10, using: &generator)
        var text = ""
        for _ in 0..<count { text += alphabet.randomElement(using: &generator)! }
        return text
    }
}
