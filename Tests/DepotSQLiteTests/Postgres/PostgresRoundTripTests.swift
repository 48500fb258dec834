#if Postgres
    import Depot
    @_spi(Measurement) @testable import DepotPostgres
    import Foundation
    import Testing

    /// Round trips per write (issue 35): statements counted by the store itself
    /// (`statementCount`, each one round trip in postgres-nio), and what sending them without
    /// waiting must keep: a failure anywhere fails the whole transaction.
    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresRoundTripTests {
        @Test("an upsert of records is one statement: the write lock, the rows and the change notice")
        func upsertIsOneStatement() async throws {
            try await withPostgresReplicas { first, second in
                // Given: a second object watching the collection
                let changes = second.changes(collection: "messages")
                // When: three records (one id twice) are upserted
                let before = first.statementCount
                try await first.upsert([
                    record("1", ["text": "a"]), record("2", ["text": "b"]), record("1", ["text": "c"]),
                ])
                // Then: one statement wrote them, the last record of an id won, and the notice went out
                #expect(first.statementCount - before == 1)
                #expect(try await second.fetch(collection: "messages", id: "1")?.object["text"] == "c")
                #expect(try await second.fetch(collection: "messages", id: "2") != nil)
                _ = try await firstElement(of: changes)
            }
        }

        @Test("a write recording an entity's first outbox entry sends 4 statements, its notices riding with them")
        func recordingWriteStatements() async throws {
            try await withPostgresReplicas { first, second in
                // Given: a second object watching the collection
                let changes = second.changes(collection: "messages")
                // When: the record's upsert and its outbox entry, in one transaction
                let before = first.statementCount
                try await first.transaction { tx in
                    try tx.upsert(record("1", ["text": "hi"], state: .created))
                    try tx.recordOutbox(
                        collection: "messages", entityID: "1", operation: .create, payload: ["text": "hi"])
                }
                // Then: BEGIN, the upsert taking the lock and announcing the record, the entry added
                // if first and announcing the outbox, COMMIT (before: a fifth for the notice; before
                // that, seven: BEGIN, lock, upsert, entries read, entry added, notice, COMMIT)
                #expect(first.statementCount - before == 4)
                #expect(try await first.outboxCount(OutboxQuery()) == 1)
                // and the other object was told of the record, once the transaction committed
                #expect(try await firstElement(of: changes).changed == ["1"])
            }
        }

        @Test("a store of schema version 1 is upgraded on open: its outbox gets append_outbox_if_first, entries kept")
        func schemaVersionOneUpgrades() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            // Given: a store with an entry, taken back to version 1 (no function, no version 2 or 3 row)
            let first = try await PostgresFixture.make(in: directory)
            _ = try await first.transaction { tx in
                try tx.recordOutbox(collection: "messages", entityID: "1", operation: .create, payload: ["text": "a"])
            }
            let schema = PostgresFixture.schema(directory)
            try await first.withTransaction { tx in
                try await tx.query("DROP FUNCTION \(unescaped: "\"\(schema)\"").append_outbox_if_first")
                try await tx.query("DELETE FROM \(unescaped: "\"\(schema)\"").schema_version WHERE version >= 2")
            }
            // When: the store is opened again and records a write of a new entity and of the old one
            let reopened = try await PostgresFixture.make(in: directory)
            try await reopened.transaction { tx in
                try tx.recordOutbox(collection: "messages", entityID: "2", operation: .create, payload: ["text": "b"])
                try tx.recordOutbox(collection: "messages", entityID: "1", operation: .update, payload: ["text": "c"])
            }
            // Then: the new entity's entry was added, the old one's folded into its pending create
            let entries = try await reopened.outbox(OutboxQuery())
            #expect(entries.map(\.entityID) == ["1", "2"])
            #expect(entries.first?.operation == .create && entries.first?.payload == ["text": "c"])
            let versions = try await reopened.withTransaction { tx in
                try await tx.query("SELECT max(version) FROM \(unescaped: "\"\(schema)\"").schema_version")
                    .first?.decode(Int.self)
            }
            #expect(versions == 3)
        }

        @Test("a notice that rode with a statement is not delivered when its transaction rolls back")
        func riddenNoticeRollsBack() async throws {
            try await withPostgresReplicas { first, second in
                // Given: a second object watching the collection
                let changes = second.changes(collection: "messages")
                // When: a transaction upserts record 1 (its notice in the statement), then fails
                await #expect(throws: DepotError.self) {
                    try await first.transaction { tx in
                        try tx.upsert(record("1", ["text": "gone"]))
                        try tx.upsert(record("2", ["text": "x"], collection: "bad\u{0}collection"))
                    }
                }
                // and then record 3 is written and committed
                try await first.upsert([record("3", ["text": "kept"])])
                // Then: the first notice the other object gets is record 3's: record 1's went with
                // the rollback
                #expect(try await firstElement(of: changes).changed == ["3"])
                #expect(try await second.fetch(collection: "messages", id: "1") == nil)
            }
        }

        @Test("an upsert the server refuses, sent without waiting, rolls back the whole transaction")
        func refusedUnwaitedUpsertRollsBack() async throws {
            try await withPostgresReplicas { first, second in
                // When: an entry is added, then a record PostgreSQL cannot hold (text with U+0000)
                // is upserted and the body returns before the server answers
                await #expect(throws: DepotError.self) {
                    try await first.transaction { tx in
                        try tx.appendOutbox(Conformance.entry("1"))
                        try tx.upsert(record("2", ["text": "x"], collection: "bad\u{0}collection"))
                    }
                }
                // Then: nothing committed, and the store still writes
                #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 0)
                try await first.upsert([record("3", ["text": "ok"])])
                #expect(try await second.fetch(collection: "messages", id: "3") != nil)
            }
        }

        @Test("a read after an unwaited upsert sees it, and a refused one fails that read with its own error")
        func readAfterUnwaitedUpsert() async throws {
            try await withPostgresReplicas { first, _ in
                // When: a body upserts, then reads the record back
                let seen = try await first.transaction { tx in
                    try tx.upsert(record("1", ["text": "hi"]))
                    return try tx.fetch(collection: "messages", id: "1")
                }
                // Then: the read saw the write
                #expect(seen?.object["text"] == "hi")
                // When: the upsert is refused before the read
                let error = await #expect(throws: DepotError.self) {
                    try await first.transaction { tx in
                        try tx.upsert(record("2", ["text": "x"], collection: "bad\u{0}collection"))
                        return try tx.fetch(collection: "messages", id: "1")
                    }
                }
                // Then: the error names the write, not the read the server then refused
                #expect(error?.message.contains("write bad") == true, "\(error as Any)")
            }
        }
    }
#endif
