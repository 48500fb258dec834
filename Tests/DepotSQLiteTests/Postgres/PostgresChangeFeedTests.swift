#if Postgres
    import Depot
    @testable import DepotPostgres
    import Foundation
    import Testing

    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresChangeFeedTests {
        @Test("a write through one storage object reaches changes(collection:) of another on the same schema")
        func changeReachesOtherObject() async throws {
            try await withPostgresReplicas { first, second in
                // Given: the second object's observer of messages
                let changes = second.changes(collection: "messages")
                // When: the first object stores a record
                try await first.upsert(record("1", ["text": "hi"])).value
                // Then: the second object's observers hear of it, with its id
                let change = try await firstElement(of: changes)
                #expect(change.collection == "messages" && change.changed == ["1"])
            }
        }

        @Test("a delete and an outbox write reach the other object: ids and the outbox flag")
        func deleteAndOutboxReachOtherObject() async throws {
            try await withPostgresReplicas { first, second in
                try await first.upsert(record("1", ["text": "hi"])).value
                let changes = second.changes(collection: "messages")
                // When: one transaction deletes the record and records an outbox entry
                try await first.transaction { tx in
                    try tx.delete(collection: "messages", id: "1")
                    try tx.appendOutbox(OutboxEntry(sequence: 0, collection: "messages", entityID: "1", operation: .delete, payload: nil))
                }.value
                // Then: the other object hears of the delete
                let change = try await firstElement(of: changes)
                #expect(change.deleted == ["1"] && change.changed.isEmpty)
            }
        }

        @Test("a notice too large for NOTIFY names its collection only, and still reaches the other object")
        func largeNoticeIsCoarse() async throws {
            try await withPostgresReplicas { first, second in
                let changes = second.changes(collection: "messages")
                // When: one write touches 1,000 ids (far over the 7,000-byte notice)
                try await first.upsert((0..<1000).map { record("message-\($0)", ["text": "x"]) }).value
                // Then: a change of the collection arrives, its ids left out
                let change = try await firstElement(of: changes)
                #expect(change.collection == "messages" && change.changed.isEmpty && change.cleared)
            }
        }
    }
#endif
