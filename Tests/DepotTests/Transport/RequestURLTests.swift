import Foundation
import Testing

@testable import Depot

/// The per-request shortcuts (URL joined from the base's parts parsed once, `:id` split off the
/// route's end, plain ids left as they are) against the general code they stand in for.
@Suite struct RequestURLTests {
    static let bases = [
        "http://127.0.0.1:8080", "http://127.0.0.1:8080/", "https://api.example.com/v1", "https://api.example.com/v1/",
        "http://user:pw@example.com/a%20b/", "http://example.com/api?key=1", "http://example.com/api#top",
        "http://[::1]:9000/x",
    ]
    /// Paths already percent-encoded, which both paths keep as they are (others are encoded by the
    /// slow path: see `URLSafetyTests`).
    static let paths = [
        "messages/1", "/messages/1", "", "/", "messages/1/", "messages/%E2%9C%93", "messages/a%20b", "m:1/@x;y=z",
        "!$&'()*+,=-._~", "//double",
    ]
    static let queries: [[URLQueryItem]] = [
        [], [URLQueryItem(name: "a", value: "1")], [URLQueryItem(name: "a b", value: "c&d=e")],
        [URLQueryItem(name: "flag", value: nil), URLQueryItem(name: "x", value: "")],
        [URLQueryItem(name: "q", value: "x=y+z;w?#/:@!$'()*,~%")], [URLQueryItem(name: "é", value: "ü✓")],
        [URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "a", value: "2")],
    ]

    @Test("the URL from the base's cached parts equals the URLComponents one", arguments: bases)
    func sameURL(base: String) throws {
        let baseURL = try #require(URL(string: base))
        let parts = BaseURLParts(baseURL)
        for path in Self.paths {
            for query in Self.queries {
                let request = NetworkRequest(method: .get, path: path, query: query)
                let expected = try? request.url(relativeTo: baseURL)
                let actual = try? request.url(relativeTo: parts)
                #expect(actual == expected, "\(base) + \(path) + \(query)")
                #expect(actual?.absoluteString == expected?.absoluteString, "\(base) + \(path) + \(query)")
            }
        }
    }

    @Test(
        "only plain paths take the fast path",
        arguments: ["a b", "héllo", "messages?x", "messages#x", "50%", "%zz", "[x]"])
    func notPlain(path: String) {
        #expect(!BaseURLParts.isPlain(path, query: false))
    }

    @Test("the common base URLs take the fast path")
    func fastPath() throws {
        #expect(BaseURLParts(try #require(URL(string: "http://127.0.0.1:8080"))).prefix == "http://127.0.0.1:8080")
        #expect(
            BaseURLParts(try #require(URL(string: "https://api.example.com/v1/"))).prefix
                == "https://api.example.com/v1")
        #expect(BaseURLParts(try #require(URL(string: "http://example.com/api?key=1"))).prefix == nil)
    }

    static let ids = ["1", "abc-DEF_9~", "a/b", "..", ".", "", "a b", "é", "50%", "x.y", "%2E", "a;b?c#d", "👍🏽"]
    static let templates = [
        "messages/:id", "messages/:id/", "/a/:id/b/:id", "users/:identity/:id", "messages:id", ":id", "a/:idx",
        "messages", "messages/:id\u{301}",
    ]

    @Test("a route's resolved path equals search-and-replace with the old encoding", arguments: templates)
    func resolvedPath(template: String) {
        for id in Self.ids {
            let expected = template.replacingOccurrences(of: ":id", with: Self.referenceEncoding(id))
            #expect(Route(.get, template).resolvedPath(id: id) == expected, "\(template) with \(id)")
        }
    }

    @Test("ids are encoded as before", arguments: ids)
    func encoding(id: String) {
        #expect(encodePathComponent(id) == Self.referenceEncoding(id))
    }

    /// The encoding before the shortcut for plain ids.
    static func referenceEncoding(_ component: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        let encoded = component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
        if encoded.allSatisfy({ $0 == "." }) {
            return String(repeating: "%2E", count: encoded.count)
        }
        return encoded
    }
}
