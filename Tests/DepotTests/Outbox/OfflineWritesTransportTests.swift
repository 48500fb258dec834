import Depot
import DepotTesting
import Foundation
import Testing

/// Offline writes combine on every transport: a refused connection is a fact the transport
/// records (`RequestNotSent`), so the entry it failed stays unsent and absorbs later writes
/// (issue 42, #1).
@Suite struct OfflineWritesTransportTests {
    struct Message: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var text: String
    }

    /// Messages written locally first, each write then tried at once.
    struct Messages: CRUDNetworkingStorageRepository {
        typealias Entity = Message
        let store: Networking
        let storage: Storage
        let path = "messages"
        var strategy: Strategy { Strategy(Rule(target: .local, synchronize: true)) }
    }

    @Test(
        "twenty writes made while the server is unreachable, each tried at once, go as ten creates once it is back",
        arguments: Transport.available)
    func twentyOfflineWrites(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            let storage = InMemoryStorage()
            let messages = Messages(
                store: transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: .none)),
                storage: storage)
            // Given: ten creates and ten edits of them (twenty writes), each refused at the door
            try await server.goOffline()
            for index in 0..<10 {
                _ = try await messages.create(Message(id: "m\(index)", text: "draft")).value
                _ = try await messages.update(Message(id: "m\(index)", text: "final \(index)")).value
            }
            // And a create deleted before the server came back: nothing to send
            _ = try await messages.create(Message(id: "gone", text: "oops")).value
            _ = try await messages.delete(id: "gone").value
            try await server.goOnline()
            server.clearRequests()

            // When: the outbox is flushed
            let forwarder = Forwarder(for: messages)
            let report = try await forwarder.flush().value
            await forwarder.stop()

            // Then: one POST per message with its last text, nothing else
            let sent = server.requests.map { "\($0.method) \($0.path)" }
            #expect(sent == Array(repeating: "POST /messages", count: 10))
            #expect(report.delivered == 10 && report.requests == 10 && report.retrying == 0)
            #expect(try await storage.outbox(OutboxQuery()).isEmpty)
            let texts = Set(server.objects(in: "messages").compactMap { $0["text"]?.stringValue })
            #expect(texts == Set((0..<10).map { "final \($0)" }))
        }
    }
}
