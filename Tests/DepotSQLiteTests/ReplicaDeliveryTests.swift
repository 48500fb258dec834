import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// "Replicas see each other's deliveries": the rule "an older pull page never overwrites a newer
/// delivery" holds across storage objects (processes, replicas) on one database.
@Suite struct ReplicaDeliveryTests {
    @Test("a pull on replica A never overwrites an answer replica B stored while A's page was out (one SQLite file)")
    func replicaKeepsOtherReplicasDelivery() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: two storage objects on one file (two replicas), note 1 pulled as "old".
            server.resource("messages", objects: [["id": "1", "text": "old"]])
            let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(5)))
            let a = try SQLiteStorage(path: directory.path("shared.sqlite"))
            let b = try SQLiteStorage(path: directory.path("shared.sqlite"))
            let pullA = SyncMessages(store: session, storage: a, synchronization: SynchronizationConfiguration())
            let writeB = SyncMessages(store: session, storage: b, synchronization: SynchronizationConfiguration())
            _ = try await pullA.synchronize().value

            // When: A's pull page (as the server stood before) is out while B updates note 1.
            do {
                let stale: JSON = [["id": "1", "text": "old"]]
                server.route(.get, "/messages", response: .json(stale, delay: .milliseconds(700)))
            }
            let (arrived, signal) = AsyncStream<Void>.makeStream()
            server.observe(.get, "/messages") { _ in signal.yield() }
            let pull = Task { try await pullA.synchronize().value }
            var iterator = arrived.makeAsyncIterator()
            _ = await iterator.next()
            _ = try await writeB.update(Message(id: "1", text: "new")).value
            _ = try await pull.value

            // Then: the file keeps B's delivery, seen from either replica.
            #expect(try await a.fetch(collection: "messages", id: "1")?.object["text"] == "new")
            #expect(try await b.fetch(collection: "messages", id: "1")?.object["text"] == "new")
        }
    }
}
