import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The app's repository, nil attributes left out of PUT and POST bodies.
private struct OmittingMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var configuration: RepositoryConfiguration { RepositoryConfiguration(nilEncoding: .omit) }
}

/// A queued update and a queued patch that clears a field fold into one PUT (issue 42 #8): the
/// cleared field goes as the repository's nil encoding says, so a server whose PUT keeps the
/// fields a body leaves out does not keep the old value, and the answer does not bring it back.
@Suite struct ClearedFieldFoldTests {
    @Test(
        "a queued update then a queued patch clearing author send author: null; the server and the store forget it",
        arguments: StoreKind.allCases)
    func clearedFieldStaysCleared(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one", "author": "ann"]]) { fixture in
            // Given: a server whose PUT keeps omitted fields, message 1 read, then an update and a
            // patch clearing its author queued
            fixture.server.setPutKeepsOmittedFields(true, for: "messages")
            _ = try await fixture.repository().read("1").value
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.update(Message(id: "1", text: "two", author: "ann")).value
            _ = try await writes.patch(Message(id: "1", text: "two", author: nil)).value
            #expect(try await fixture.outbox().map(\.operation) == [.update])

            // When: the outbox is flushed
            let report = try await fixture.forwarder(writes).flush().value

            // Then: one PUT named author as null, and neither the server nor the store has "ann"
            #expect(report.delivered == 1 && report.rejected.isEmpty)
            let puts = fixture.server.requests.filter { $0.method == "PUT" }
            #expect(puts.count == 1)
            #expect(puts.first?.json?.objectValue?["author"] == .null)
            #expect((fixture.serverObject("1")?["author"] ?? .null) == .null)
            #expect(fixture.serverObject("1")?["text"] == "two")
            let stored = try #require(try await fixture.stored("1"))
            #expect(stored.syncState == .synced && stored.object["text"] == "two")
            #expect((stored.object["author"] ?? .null) == .null)
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a folded PUT of a repository that omits nil attributes leaves the cleared field out",
        arguments: StoreKind.allCases)
    func omittingRepositoryLeavesItOut(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one", "author": "ann"]]) { fixture in
            // Given: a repository that omits nil attributes, an update and a patch clearing the
            // author queued
            let writes = OmittingMessages(store: fixture.session, storage: fixture.storage)
            _ = try await fixture.repository().read("1").value
            _ = try await fixture.repository(strategy: recordOnly).update(Message(id: "1", text: "two", author: "ann"))
                .value
            _ = try await fixture.repository(strategy: recordOnly).patch(Message(id: "1", text: "two", author: nil))
                .value

            // When: the outbox is flushed by the omitting repository
            let report = try await Forwarder(for: writes).flush().value

            // Then: the PUT left author out, as the repository's nil encoding says
            #expect(report.delivered == 1)
            let put = try #require(fixture.server.requests.first { $0.method == "PUT" })
            let body = try #require(put.json?.objectValue)
            #expect(body["author"] == nil && body["text"] == "two")
        }
    }
}
