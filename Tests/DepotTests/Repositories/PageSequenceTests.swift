import Depot
import DepotTesting
import Foundation
import Testing

/// 23 messages served 5 a page, DRF style: `{"results": […], "next": …}`.
private func serve(_ server: StubServer, failingAt failing: Int? = nil) {
    let all = (1...23).map { JSON.object(["id": .string(String($0)), "text": .string("m\($0)")]) }
    server.route(.get, "messages") { request, _ in
        let start = Int(request.queryItems.first { $0.name == "start" }?.value ?? "0") ?? 0
        if start == failing { return .json(["detail": "boom"], status: 500) }
        let end = min(start + 5, all.count)
        // Like a real server, the next link keeps the request's filters.
        let filters = request.queryItems.filter { $0.name != "start" }.map { "&\($0.name)=\($0.value ?? "")" }.joined()
        let next: JSON = end < all.count ? .string("/messages?start=\(end)\(filters)") : .null
        return .json(["results": .array(Array(all[start..<end])), "next": next])
    }
}

struct PagedMessages: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    var configuration: RepositoryConfiguration { RepositoryConfiguration(collectionEnvelope: "results") }
}

@Suite struct PageSequenceTests {
    @Test("readAll(query:pages: .all) reads every page")
    func readAllPages() async throws {
        try await withStubServer { server in
            serve(server)
            let messages = PagedMessages(store: NetworkingSession(url: server.url))
            let all = try await messages.readAll(query: ["author": "ann"], pages: .all).value
            #expect(all.map(\.id) == (1...23).map(String.init))
            #expect(server.requests.count == 5)
            #expect(server.requests.allSatisfy { $0.queryItems.contains(URLQueryItem(name: "author", value: "ann")) })
        }
    }

    @Test("pages are read as the loop asks: a break after two pages stops the reading at two requests")
    func lazyPages() async throws {
        try await withStubServer { server in
            serve(server)
            let messages = PagedMessages(store: NetworkingSession(url: server.url))
            var seen: [[String]] = []
            for try await page in messages.pages(pagination: .nextLink("next")) {
                seen.append(page.map(\.id))
                if seen.count == 2 { break }
            }
            #expect(seen == [["1", "2", "3", "4", "5"], ["6", "7", "8", "9", "10"]])
            // The reader waits for the loop: no third page is fetched after the break.
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.requests.count == 2)
        }
    }

    @Test("a failing page ends the sequence with its typed error, after the pages before it")
    func failingPage() async throws {
        try await withStubServer { server in
            serve(server, failingAt: 10)
            let messages = PagedMessages(store: NetworkingSession(url: server.url))
            var pages = 0
            let error = await #expect(throws: DepotError.self) {
                for try await _ in messages.pages() { pages += 1 }
            }
            #expect(pages == 2)
            #expect(error?.status == 500)
            let whole = await #expect(throws: DepotError.self) { try await messages.readAll(pages: .all).value }
            #expect(whole?.status == 500)
        }
    }
}
