import Depot
import DepotTesting
import Foundation
import Testing

/// CRUDE's nested collection, with its parameter bound from data.
struct People: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let household: String?
    let path = "households/:household/people"
    var pathParameters: [String: String] { household.map { ["household": $0] } ?? [:] }
}

@Suite struct PathParameterTests {
    @Test(
        "a path parameter from data is encoded as one component on every route, never a crash",
        arguments: ["Ann Lee", "a/b", "50%", "..", ":x", "é✓?#"])
    func bound(household: String) async throws {
        try await withStubServer { server in
            server.route(nil, "households/:household/people") { _, _ in .json([["id": "1", "text": "a"]]) }
            server.route(nil, "households/:household/people/:id") { _, _ in .json(["id": "1", "text": "a"]) }
            let people = People(store: NetworkingSession(url: server.url), household: household)
            _ = try await people.readAll().value
            _ = try await people.read("1").value
            _ = try await people.update(Message(id: "1", text: "b")).value
            let paths = server.requests.map(\.rawPath)
            #expect(paths.count == 3)
            let encoded = try #require(paths.first?.split(separator: "/").dropFirst().first)
            // One component: the value never splits the path or climbs out of it
            #expect(paths.allSatisfy { $0.hasPrefix("/households/\(encoded)/people") })
            #expect(!encoded.contains("/") && !encoded.hasPrefix(":") && encoded != "..")
            #expect(encoded.removingPercentEncoding == household)
            #expect(paths[1].hasSuffix("/people/1"))
        }
    }

    @Test("a parameter without a value is .invalidRequest before anything is sent", arguments: [nil, ""])
    func unbound(household: String?) async throws {
        try await withStubServer { server in
            let people = People(store: NetworkingSession(url: server.url), household: household)
            let error = await #expect(throws: DepotError.self) { try await people.readAll().value }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(":household") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("the parameter binds in route overrides too")
    func overrides() {
        struct Custom: CRUDNetworkingRepository {
            typealias Entity = Message
            let store: Networking
            let path = "households/:household/people"
            var pathParameters: [String: String] { ["household": "h 1"] }
            var configuration: RepositoryConfiguration {
                RepositoryConfiguration(routes: [.readAll: Route(.get, "v2/households/:household/members")])
            }
        }
        let custom = Custom(store: NetworkingSession(url: URL(string: "http://127.0.0.1:1")!))
        #expect(custom.route(for: .readAll).path == "v2/households/h%201/members")
        #expect(custom.route(for: .read).path == "households/h%201/people/:id")
    }
}
