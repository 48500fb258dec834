import Depot
import DepotTesting
import Foundation
import Testing

/// A collection served as Django REST Framework serves it: at `/messages/`.
struct SlashMessages: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages/"
    var configuration = RepositoryConfiguration()
}

@Suite struct TrailingSlashRouteTests {
    @Test(
        "a path with a trailing slash keeps it on collection routes; item routes follow the configuration",
        arguments: [false, true])
    func trailingSlash(itemTrailingSlash: Bool) async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages/", objects: [["id": "1", "text": "one"]])
            let messages = SlashMessages(
                store: NetworkingSession(url: server.url),
                configuration: RepositoryConfiguration(itemTrailingSlash: itemTrailingSlash))
            // When
            let created = try await messages.create(Message(id: "2", text: "two")).value
            let all = try await messages.readAll().value
            var one = try await messages.read("1").value
            one.text = "uno"
            let updated = try await messages.update(one).value
            try await messages.delete(created).value
            // Then
            #expect(created.id == "2" && all.map(\.id) == ["1", "2"] && updated.text == "uno")
            let item = itemTrailingSlash ? "/messages/1/" : "/messages/1"
            #expect(
                server.requests.map { "\($0.method) \($0.path)" } == [
                    "POST /messages/", "GET /messages/", "GET \(item)", "PUT \(item)",
                    "DELETE \(item.replacingOccurrences(of: "1", with: "2"))",
                ])
            #expect(server.objects(in: "messages/") == [["id": "1", "text": "uno", "author": nil]])
        }
    }

    @Test("a path without a slash gets none", arguments: RepositoryOperation.allCases)
    func noSlash(operation: RepositoryOperation) {
        let messages = MessageRepository(store: NetworkingSession(url: URL(string: "http://localhost")!))
        #expect(!messages.route(for: operation).path.hasSuffix("/"))
    }
}
