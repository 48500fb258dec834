import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A memo whose schema field is `tag` in v1 and `label` in v2.
private struct TaggedMemo: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var tag: String?
    var label: String?
}

/// TaggedMemos on a server, their writes queued in the store (recorded only: a flush sends them).
private struct TaggedMemos: CRUDNetworkingStorageRepository {
    typealias Entity = TaggedMemo
    let store: Networking
    let storage: Storage
    let path = "memos"
    var strategy = Strategy(Rule(target: .local, synchronize: false))
}

/// A delete of an entity whose create is still queued as an older model wrote it (a migration left
/// it as written, so it is never folded): the delete goes after the create, and the record stays
/// deleted until it has (model checker `STALE`, seed 9996373187899212764).
@Suite struct DeleteOfAsWrittenCreateTests {
    @Test(
        "a delete of a memo whose v1 create is queued as written leaves a tombstone, not a record the create's answer brings back",
        arguments: StorageKind.allCases)
    func deleteBehindAsWrittenCreate(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given: v1's create of memo "m1" queued, and v2's migration leaving it as written
            server.resource("memos")
            let storage = try await kind.make(in: directory)
            let memos = TaggedMemos(store: NetworkingSession(url: server.url), storage: storage)
            _ = try await memos.create(TaggedMemo(id: "m1", text: "one", tag: "1")).value
            _ = try await storage.migrate(
                CollectionSchema(
                    "memos", entity: TaggedMemo.self,
                    migrations: [Migration(to: 2) { $0["label"] = $0.removeValue(forKey: "tag") }]))

            // When: v2 deletes it before the create went, and the outbox is flushed
            _ = try await memos.delete(id: "m1").value
            let tombstone = try await storage.fetch(collection: "memos", id: "m1")
            let report = try await Forwarder(for: memos).flush().value

            // Then: the record was a tombstone until the create and the delete went, then gone
            #expect(tombstone?.syncState == .deleted)
            #expect(report.rejected.isEmpty)
            #expect(server.requests.map(\.method) == ["POST", "DELETE"])
            #expect(server.objects(in: "memos").isEmpty)
            #expect(try await storage.fetch(collection: "memos", id: "m1") == nil)
            #expect(try await storage.outbox(OutboxQuery(selection: .all)).isEmpty)
        }
    }
}
