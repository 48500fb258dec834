import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct ForwarderVolumeTests {
    /// `count` entries per entity for `entities` entities, appended directly so none coalesce,
    /// interleaved across entities; returns the keys per entity, in order.
    func queue(_ fixture: OutboxFixture, entities: Int, count: Int) async throws -> [String: [String]] {
        try await fixture.storage.transaction { tx in
            var keys: [String: [String]] = [:]
            for round in 1...count {
                for entity in 1...entities {
                    let id = String(entity)
                    let entry = OutboxEntry(
                        sequence: 0, collection: "messages", entityID: id, operation: .update,
                        payload: ["id": .string(id), "text": .string("v\(round)")])
                    try tx.appendOutbox(entry)
                    keys[id, default: []].append(entry.idempotencyKey)
                }
            }
            return keys
        }
    }

    @Test("with concurrency, each entity's entries still reach the server in the order they were made")
    func orderPerEntity() async throws {
        try await withOutboxFixture(objects: messageObjects(1...12)) { fixture in
            _ = try await fixture.repository().readAll().value
            let keys = try await queue(fixture, entities: 12, count: 5)
            let report = try await fixture.forwarder(maximumConcurrency: 4, pageSize: 16).flush().value
            #expect(report.delivered == 60 && report.retrying == 0)
            for (id, sent) in keys {
                let applied = fixture.server.appliedWrites.filter { $0.id == id }.sorted { $0.sequence < $1.sequence }
                #expect(applied.compactMap(\.idempotencyKey) == sent, "entity \(id)")
                #expect(fixture.serverObject(id)?["text"] == "v5")
            }
        }
    }

    /// 150 entries over pages of 32 with 4 sends at once: the smallest size that still crosses
    /// several page boundaries while sends are in flight (where an entry was lost or sent twice
    /// before). The 10,000-write figure is `swift run Soak --volume 10000`, a CI step of its own.
    @Test(
        "150 queued writes over 5 pages are delivered with none lost and none applied twice",
        arguments: StoreKind.allCases)
    func volume(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            let count = 150
            try await fixture.storage.transaction { tx in
                for index in 1...count {
                    let id = String(index)
                    let object: JSONObject = ["id": .string(id), "text": .string("note \(index)")]
                    try tx.upsert(StoredRecord(collection: "messages", id: id, object: object, syncState: .created))
                    try tx.recordOutbox(
                        collection: "messages", entityID: id, operation: .create, payload: .object(object))
                }
            }
            let keys = Set(try await fixture.outbox().map(\.idempotencyKey))
            #expect(keys.count == count)
            let forwarder = fixture.forwarder(messages, maximumConcurrency: 4, pageSize: 32)
            let report = try await forwarder.flush().value
            #expect(report.delivered == count && report.retrying == 0 && report.rejected.isEmpty)
            #expect(await forwarder.pendingCount == 0)
            let applied = fixture.server.appliedWrites
            #expect(applied.count == count)
            #expect(Set(applied.compactMap(\.idempotencyKey)) == keys)
            #expect(fixture.server.objects(in: "messages").count == count)
            let unsynced = try await fixture.storage.fetch(
                collection: "messages", syncStates: [.created, .updated, .deleted], after: nil, limit: 10
            )
            #expect(unsynced.isEmpty)
        }
    }
}
