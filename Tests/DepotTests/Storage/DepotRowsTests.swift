@testable import Depot
import Foundation
import Testing

/// The hook a store that locks per entity (PostgreSQL) names Depot's own rows with: every row of
/// one entity, as Depot keys it, names that entity.
@Suite struct DepotRowsTests {
    @Test("each of Depot's own rows of an entity, keyed as Depot keys it, names that entity")
    func perEntityRowsNameTheirEntity() {
        let rows: [(collection: String, id: String)] = [
            (MovedIDs.collection, MovedIDs.key(collection: "messages", id: "tmp-1")),
            (DeliveryLog.collection, DeliveryLog.key("messages", "a/b")),
            (Quarantine.collection, Quarantine.key(collection: "messages", id: "7", raw: .object(["id": "7"]))),
            (HTTPCache.collection, HTTPCache.recordKey(collection: "messages", id: "1:x/y")),
        ]
        let entities = rows.map { DepotRows.entity(collection: $0.collection, id: $0.id) }
        #expect(entities.map(\.collection) == ["messages", "messages", "messages", "messages"])
        #expect(entities.map(\.id) == ["tmp-1", "a/b", "7", "1:x/y"])
    }

    @Test("rows that describe no one entity, and app records, name themselves")
    func otherRowsNameThemselves() {
        let rows: [(collection: String, id: String)] = [
            (HTTPCache.collection, HTTPCache.pageKey(collection: "messages", url: "GET /messages")),
            (DeliveryLog.collection, DeliveryLog.sequenceID),
            (Quarantine.collection, Quarantine.key(collection: "messages", id: nil, raw: .object(["x": 1]))),
            (MovedIDs.collection, "99:messages/1"),
            ("messages", MovedIDs.key(collection: "messages", id: "1")),
        ]
        for row in rows {
            let entity = DepotRows.entity(collection: row.collection, id: row.id)
            #expect(entity.collection == row.collection && entity.id == row.id)
        }
    }

    @Test("the collections a store treats apart are Depot's own, under the names Depot writes them")
    func namedCollections() {
        #expect(DepotRows.unlockedCollections == [HTTPCache.generations])
        #expect(DepotRows.sharedReadCollections == [SchemaVersions.collection, OutboxBatch.collection])
        #expect(DepotRows.openBatches.collection == OutboxBatch.list.collection)
        #expect(DepotRows.openBatches.id == OutboxBatch.list.id)
    }
}
