import Foundation
import Testing

@testable import Depot

@Suite struct LinkHeaderTests {
    @Test(
        "rel=\"next\" is found among links, fields and parameters",
        arguments: [
            (["<a>; rel=\"prev\", <b>; rel=\"next\""], "b"),
            (["<a>; rel=prev", "<b>; rel=next"], "b"),
            (["<b>; title=\"x, <y>; rel=next\"; rel=\"next\""], "b"),
            (["<b>; REL=\"last NEXT\""], "b"),
            (["<a>; rel=\"prev\""], nil),
            (["garbage", ""], nil),
            (["<unterminated; rel=next"], nil),
            (["<a>; title=\"esc \\\" aped\"; rel=next"], "a"),
        ] as [([String], String?)])
    func next(_ values: [String], _ expected: String?) {
        #expect(LinkHeader.next(in: values) == expected)
    }

    @Test("targets become requests relative to the base URL, or are refused")
    func targets() throws {
        let base = URL(string: "http://host:8080/api/")!
        let previous = NetworkRequest(method: .get, path: "messages", query: [URLQueryItem(name: "_limit", value: "2")])
        let absolute = try LinkHeader.request(
            for: "http://host:8080/api/messages?_page=2&_limit=2", after: previous, base: base)
        #expect(absolute.path == "messages" && absolute.query.map(\.name) == ["_page", "_limit"])
        #expect(try LinkHeader.request(for: "?cursor=x", after: previous, base: base).path == "messages")
        #expect(try LinkHeader.request(for: "/api/other?p=1", after: previous, base: base).path == "other")
        #expect(throws: DepotError.self) {
            try LinkHeader.request(for: "http://evil:8080/api/messages", after: previous, base: base)
        }
        #expect(throws: DepotError.self) { try LinkHeader.request(for: "/elsewhere", after: previous, base: base) }
    }
}
