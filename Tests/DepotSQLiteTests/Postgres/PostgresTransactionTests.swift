#if Postgres
    import Depot
    @testable import DepotPostgres
    import Foundation
    import Testing

    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresTransactionTests {
        @Test("a transaction that throws leaves no record and no outbox entry, for any object")
        func throwingTransactionLeavesNothing() async throws {
            try await withPostgresReplicas { (first: PostgresStorage, second: PostgresStorage) async throws in
                // When: a body writes a record and an entry, then throws
                await #expect(throws: ConformanceFailure.self) {
                    try await first.transaction { tx in
                        try tx.upsert(record("1", ["text": "hi"]))
                        try tx.appendOutbox(Conformance.entry("1"))
                        throw ConformanceFailure()
                    }
                }
                // Then: neither object sees either
                #expect(try await second.fetch(collection: "messages", id: "1") == nil)
                #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 0)
                #expect(try await first.fetch(collection: "messages", id: "1") == nil)
            }
        }

        @Test("two objects claiming the same entries at once: each entry is held by one of them")
        func claimsAreExclusive() async throws {
            try await withPostgresReplicas { first, second in
                // Given: 20 entries
                let sequences = try await Conformance.append((0..<20).map { Conformance.entry("e\($0)") }, to: first)
                // When: both objects claim all of them at once, under different owners
                async let claimedByFirst = first.transaction { tx in
                    try tx.claimOutbox(
                        sequences: sequences, lease: Conformance.lease(Conformance.peerA, for: 60), now: Conformance.now
                    )
                }
                async let claimedBySecond = second.transaction { tx in
                    try tx.claimOutbox(
                        sequences: sequences, lease: Conformance.lease(Conformance.peerB, for: 60), now: Conformance.now
                    )
                }
                let (a, b) = try await (claimedByFirst, claimedBySecond)
                // Then: every entry went to exactly one of them, and the store says so
                #expect(Set(a.map(\.sequence)).isDisjoint(with: b.map(\.sequence)))
                #expect(a.count + b.count == 20)
                let stored = try await first.outbox(OutboxQuery(selection: .all))
                #expect(stored.allSatisfy { $0.attempts == 1 && $0.lease != nil })
            }
        }

        @Test("a row the store cannot read is a .storage error, not a trap")
        func unreadableRowIsStorageError() async throws {
            try await withPostgresReplicas { first, _ in
                // Given: a row written behind Depot's back with an unknown sync state
                try await first.withTransaction { tx in
                    try await tx.query(
                        "INSERT INTO \(unescaped: first.schema).records (collection, id, object, sync_state) VALUES ('messages', 'x', '{}', 'sideways')"
                    )
                }
                // Then: reading it fails with .storage
                await #expect(throws: DepotError.self) { try await first.fetch(collection: "messages", id: "x") }
                do {
                    _ = try await first.fetch(collection: "messages", id: "x")
                } catch let error as DepotError {
                    #expect(error.code == .storage)
                }
            }
        }

        @Test("two objects opening a new schema at once both succeed")
        func concurrentSchemaCreation() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            async let one = PostgresFixture.make(in: directory)
            async let two = PostgresFixture.make(in: directory)
            let (a, b) = try await (one, two)
            try await a.upsert(record("1", ["text": "hi"]))
            #expect(try await b.fetch(collection: "messages", id: "1")?.object["text"] == "hi")
        }
    }
#endif
