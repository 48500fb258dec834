import Depot
import DepotTesting
import Foundation
import Testing

/// 27 messages, served as a framework pages them.
private let all = (1...27).map { JSON.object(["id": .string(String($0)), "text": .string("m\($0)")]) }

private struct Listed: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages/"
}

@Suite struct AutomaticPagingTests {
    @Test("readAll(pages: .all) follows meta.next in {meta, objects} (django-tastypie): 27 of 27")
    func metaNext() async throws {
        try await withStubServer { server in
            server.route(.get, "messages/") { request, _ in
                let offset = Int(request.queryItems.first { $0.name == "offset" }?.value ?? "0") ?? 0
                let end = min(offset + 20, all.count)
                let next: JSON = end < all.count ? .string("/messages/?limit=20&offset=\(end)") : .null
                return .json([
                    "meta": ["limit": 20, "next": next, "offset": .integer(Int64(offset)), "total_count": 27],
                    "objects": .array(Array(all[offset..<end])),
                ])
            }
            let messages = try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            #expect(messages.count == 27)
        }
    }

    @Test("readAll(pages: .all) pages by the page number the answer echoes with its total: 27 of 27")
    func echoedPage() async throws {
        try await withStubServer { server in
            server.route(.get, "messages/") { request, _ in
                let page = Int(request.queryItems.first { $0.name == "page" }?.value ?? "1") ?? 1
                let start = min((page - 1) * 15, all.count)
                let end = min(start + 15, all.count)
                return .json(["rows": .array(Array(all[start..<end])), "total": 27, "page": .integer(Int64(page))])
            }
            let messages = try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            #expect(messages.map(\.id) == (1...27).map(String.init))
        }
    }

    @Test("a list whose total says it goes on, with no way to the next page, is listNotPaged, not a first page")
    func notPaged() async throws {
        try await withStubServer { server in
            server.route(.get, "messages/", response: .json(["rows": .array(Array(all[0..<15])), "total": 27]))
            let error = await #expect(throws: DepotError.self) {
                try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            }
            #expect(error?.code == .listNotPaged)
        }
    }

    @Test("an envelope cut at its page size, naming no next link, total or paging, is listNotPaged (PiccoloCRUD)")
    func envelopeWithoutEnd() async throws {
        try await withStubServer { server in
            server.route(.get, "messages/", response: .json(["rows": .array(Array(all[0..<15]))]))
            let error = await #expect(throws: DepotError.self) {
                try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            }
            #expect(error?.code == .listNotPaged)
            #expect(server.requests.count == 1)
        }
    }

    @Test(
        "an answer that says it is the whole list is read as the whole list",
        arguments: [
            ("a bare array", JSON.array(all), [String: String]()),
            ("next: null", JSON.object(["results": .array(all), "next": .null]), [:]),
            ("meta without next", JSON.object(["data": .array(all), "meta": ["page": 1]]), [:]),
            ("links without next", JSON.object(["data": .array(all), "links": ["self": "/messages/"]]), [:]),
            ("a Link header without next", JSON.object(["rows": .array(all)]), ["Link": #"</messages/>; rel="self""#]),
            ("Content-Range of the whole", JSON.object(["rows": .array(all)]), ["Content-Range": "note 0-26/27"]),
        ])
    func saysWhole(_ shape: String, body: JSON, headers: [String: String]) async throws {
        try await withStubServer { server in
            server.route(.get, "messages/", response: .json(body, headers: headers))
            let messages = try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            #expect(messages.count == 27, "\(shape)")
        }
    }

    @Test("Content-Range naming a longer list than the answer gave, with no way on, is listNotPaged")
    func contentRangeTotal() async throws {
        try await withStubServer { server in
            server.route(
                .get, "messages/",
                response: .json(["rows": .array(Array(all[0..<15]))], headers: ["Content-Range": "note 0-14/27"]))
            let error = await #expect(throws: DepotError.self) {
                try await Listed(store: NetworkingSession(url: server.url)).readAll(pages: .all).value
            }
            #expect(error?.code == .listNotPaged && error?.message.contains("27") == true)
        }
    }

    @Test("field errors under a wrapper named after the resource read as the field's own name")
    func resourceWrapper() throws {
        var error = DepotError(.status, "refused")
        error.request = DepotError.Request(method: "POST", url: "http://127.0.0.1:1/api/v1/note/")
        let wrapped: JSON = ["note": ["title": ["This field is required."]]]
        error.responseBody = try wrapped.serialized()
        #expect(error.fieldErrors == [FieldError(field: "title", message: "This field is required.")])
        error.request = DepotError.Request(method: "PUT", url: "http://127.0.0.1:1/api/v1/note/1/")
        #expect(error.fieldErrors.map(\.field) == ["title"])
        // A nested field that is not the resource keeps its path.
        error.request = DepotError.Request(method: "POST", url: "http://127.0.0.1:1/people/")
        let nested: JSON = ["address": ["city": ["Required."]]]
        error.responseBody = try nested.serialized()
        #expect(error.fieldErrors.map(\.field) == ["address.city"])
    }
}
