import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct EmptyIDTests {
    @Test(
        "an empty id is refused before the store, the outbox or the server sees the write",
        arguments: [Strategy.remoteFirst, .localFirst])
    func emptyID(strategy: Strategy) async throws {
        try await withFixture(strategy: strategy) { server, messages, storage in
            // When
            let delete = await #expect(throws: DepotError.self) { try await messages.delete(id: "").value }
            let update = await #expect(throws: DepotError.self) {
                try await messages.update(Message(id: "", text: "x")).value
            }
            // Then
            #expect(delete?.code == .invalidRequest)
            #expect(update?.code == .invalidRequest)
            #expect(server.requests.isEmpty)
            let outbox = try await storage.outboxCount(OutboxQuery(selection: .all))
            #expect(outbox == 0)
        }
    }
}
