import Depot
import DepotTesting
import Foundation
import Testing

/// Messages with snapshots, on a server whose single-object answers carry ETags and whose lists
/// carry none.
private struct SnapshotMessages: PatchableRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    let snapshots = SnapshotCache()
}

@Suite struct ListKeepsETagTests {
    @Test("a list read of an unchanged entity keeps the ETag its snapshot held: the next update sends If-Match")
    func listKeepsETag() async throws {
        try await withStubServer { server in
            // Given: an entity created (its answer has an ETag), then listed (no ETag per item)
            server.resource("messages")
            let messages = SnapshotMessages(store: NetworkingSession(url: server.url))
            var message = try await messages.create(Message(id: "1", text: "a")).value
            _ = try await messages.readAll().value

            // When: it is updated
            message.text = "b"
            _ = try await messages.update(message).value

            // Then: the PUT carried the ETag of the create's answer
            let put = try #require(server.requests.first { $0.method == "PUT" })
            #expect(put.header("If-Match") != nil)
        }
    }
}
