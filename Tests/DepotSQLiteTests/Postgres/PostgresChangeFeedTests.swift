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

                // When: this schema's LISTEN connections drop, and a write commits while they are down
                let pattern = "%\(second.channel)%"
                _ = try await first.rows(
                    "drop the listeners",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE \(pattern) AND pid <> pg_backend_pid()"
                )
                var listening = 1
                while listening > 0 {
                    listening =
                        try await first.rows(
                            "count the listeners",
                            "SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE \(pattern) AND pid <> pg_backend_pid()"
                        ).first.map { try $0.decode(Int.self) } ?? 0
                }
                try await first.upsert(record("2", ["text": "meanwhile"]))

                // Then: once listening again, the second object tells its observers the collection changed
                let change = try await firstElement(of: changes)
                #expect(change.collection == "messages" && (change.cleared || change.changed.contains("2")))
            }
        }
    }
#endif
