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
                try await first.upsert(record("1", ["text": "hi"]))
                // Then: the second object's observers hear of it, with its id
                let change = try await firstElement(of: changes)
                #expect(change.collection == "messages" && change.changed == ["1"])
            }
        }

        @Test("a delete and an outbox write reach the other object: ids and the outbox flag")
        func deleteAndOutboxReachOtherObject() async throws {
            try await withPostgresReplicas { first, second in
                let changes = second.changes(collection: "messages")
                var iterator = changes.makeAsyncIterator()
                try await first.upsert(record("1", ["text": "hi"]))
                #expect(await iterator.next()?.changed == ["1"])
                // When: one transaction deletes the record and records an outbox entry
                try await first.transaction { tx in
                    try tx.delete(collection: "messages", id: "1")
                    try tx.appendOutbox(
                        OutboxEntry(
                            sequence: 0, collection: "messages", entityID: "1", operation: .delete, payload: nil))
                }
                // Then: the other object hears of the delete
                let change = await iterator.next()
                #expect(change?.deleted == ["1"] && change?.changed.isEmpty == true)
            }
        }

        @Test("a notice too large for NOTIFY names its collection only, and still reaches the other object")
        func largeNoticeIsCoarse() async throws {
            try await withPostgresReplicas { first, second in
                let changes = second.changes(collection: "messages")
                // When: one write touches 120 ids of 80 characters (over the 7,000-byte notice)
                let prefix = String(repeating: "m", count: 76)
                try await first.upsert((0..<120).map { record("\(prefix)\(1000 + $0)", ["text": "x"]) })
                // Then: a change of the collection arrives, its ids left out
                let change = try await firstElement(of: changes)
                #expect(change.collection == "messages" && change.changed.isEmpty && change.cleared)
            }
        }

        @Test("a lost LISTEN connection: a write made meanwhile still reaches the other object's observers")
        func lostListenerRefreshes() async throws {
            try await withPostgresReplicas { first, second in
                // Given: the second object listens (a first write reaches it)
                let before = second.changes(collection: "messages")
                try await first.upsert(record("1", ["text": "hi"]))
                _ = try await firstElement(of: before)
                let changes = second.changes(collection: "messages")

                // When: the second object's LISTEN connection ends (the server process it recorded,
                // never one found by its query's text), and a write commits before it listens again
                let backend = try #require(second.listenerBackend.withLock { $0 })
                _ = try await first.rows("end the listener", "SELECT pg_terminate_backend(\(backend))")
                // The object notices at once; it listens again only after 200 ms.
                #expect(await eventuallyTrue { second.listenerBackend.withLock { $0 } != backend })
                try await first.upsert(record("2", ["text": "meanwhile"]))

                // Then: once listening again, the second object tells its observers the collection changed
                let change = try await firstElement(of: changes, within: 30)
                #expect(change.collection == "messages" && (change.cleared || change.changed.contains("2")))
            }
        }
    }
#endif
