#if Postgres
    import Depot
    @testable import DepotPostgres
    import Dispatch
    import Foundation
    import Testing

    /// Per-entity write locks (issue 35): replicas write different entities in parallel, one
    /// entity's transactions run one after the other, a claim skips what another transaction
    /// holds, and two transactions that wait for each other both end.
    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresEntityLockTests {
        @Test("a write of another entity does not wait for a transaction holding one entity")
        func otherEntityWritesInParallel() async throws {
            try await withPostgresReplicas { first, second in
                try await first.withTransaction { tx in
                    // Given: a transaction that read entity 1 (and holds it)
                    _ = try await tx.onThread { try tx.fetch(collection: "messages", id: "1") }
                    // When: the other replica writes entity 2 (a record and its outbox entry)
                    let written = Self.finished {
                        try await second.transaction { tx in
                            try tx.upsert(record("2", ["text": "b"], state: .created))
                            try tx.recordOutbox(
                                collection: "messages", entityID: "2", operation: .create, payload: ["text": "b"])
                        }
                    }
                    // Then: that write commits while the first transaction is still open
                    #expect(try await firstElement(of: written, within: 5))
                    try await tx.onThread { try tx.upsert(record("1", ["text": "a"])) }
                }
                #expect(try await second.outboxCount(OutboxQuery()) == 1)
                #expect(try await second.fetch(collection: "messages", id: "1") != nil)
            }
        }

        @Test("a transaction of the same entity waits for the one holding it, then reads its write")
        func sameEntityWaits() async throws {
            try await withPostgresReplicas { first, second in
                let decided = LockedValue<Task<Void, any Error>?>(nil)
                try await first.withTransaction { tx in
                    // Given: a transaction that read entity 1 and found nothing
                    #expect(try await tx.onThread { try tx.fetch(collection: "messages", id: "1") } == nil)
                    // When: the other replica reads, decides and writes entity 1
                    decided.withLock {
                        $0 = Task {
                            try await second.transaction { tx in
                                let seen = try tx.fetch(collection: "messages", id: "1")?.object["text"]?.stringValue
                                try tx.upsert(record("1", ["text": .string((seen ?? "none") + "+second")]))
                            }
                        }
                    }
                    // (it waits for the entity's lock)
                    try await Self.waitForLockWaiter(first)
                    try await tx.onThread { try tx.upsert(record("1", ["text": "first"])) }
                }
                try await decided.withLock { $0 }?.value
                // Then: the second read the first's committed write before deciding
                #expect(try await first.fetch(collection: "messages", id: "1")?.object["text"] == "first+second")
            }
        }

        @Test("a claim skips an entry whose entity another transaction holds, without waiting")
        func claimSkipsHeldEntity() async throws {
            try await withPostgresReplicas { first, second in
                let sequences = try await Conformance.append(
                    [Conformance.entry("1"), Conformance.entry("2")], to: first)
                try await first.withTransaction { tx in
                    // Given: a transaction that read entity 1's outbox (a local write deciding)
                    _ = try await tx.onThread { try tx.outboxEntries(collection: "messages", entityID: "1") }
                    // When: the other replica claims both entries
                    let claimed = LockedValue<[Int64]>([])
                    let done = Self.finished {
                        let entries = try await second.transaction { tx in
                            try tx.claimOutbox(
                                sequences: sequences, lease: Conformance.lease(Conformance.peerA, for: 60),
                                now: Conformance.now)
                        }
                        claimed.withLock { $0 = entries.map(\.sequence) }
                    }
                    // Then: it returns at once with entity 2's entry only
                    #expect(try await firstElement(of: done, within: 5))
                    #expect(claimed.withLock { $0 } == [sequences[1]])
                }
            }
        }

        @Test("two transactions that wait for each other's entities both commit (the deadlock's loser runs again)")
        func deadlockRunsAgain() async throws {
            try await withPostgresReplicas { first, second in
                let (aHeld, bHeld) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
                let runs = LockedValue(0)
                let waited = LockedValue<[Bool]>([])
                // Each body holds one entity, waits until the other holds the other, then reads it:
                // each waits for the other's lock, which PostgreSQL ends by failing one.
                @Sendable func body(
                    _ tx: any StorageTransaction, holds: String, wants: String, signal: DispatchSemaphore,
                    awaits: DispatchSemaphore
                ) throws {
                    _ = try tx.fetch(collection: "messages", id: holds)
                    if runs.withLock({ runs in
                        defer { runs += 1 }
                        return runs < 2
                    }) {
                        signal.signal()
                        let arrived = awaits.wait(timeout: .now() + 5) == .success
                        waited.withLock { $0.append(arrived) }
                    }
                    _ = try tx.fetch(collection: "messages", id: wants)
                    try tx.upsert(record(holds, ["text": .string("by \(holds)")]))
                }
                async let one: Void = first.transaction { tx in
                    try body(tx, holds: "a", wants: "b", signal: aHeld, awaits: bHeld)
                }
                async let two: Void = second.transaction { tx in
                    try body(tx, holds: "b", wants: "a", signal: bHeld, awaits: aHeld)
                }
                _ = try await (one, two)
                #expect(waited.withLock { $0 } == [true, true])
                #expect(runs.withLock { $0 } == 3)
                #expect(try await first.fetch(collection: "messages", id: "a") != nil)
                #expect(try await first.fetch(collection: "messages", id: "b") != nil)
            }
        }

        @Test(
            "Depot's own rows of an entity take that entity's lock",
            arguments: [
                ("__depot_moved_ids", "8:messages/tmp-1", "messages", "tmp-1"),
                ("__depot_deliveries", "8:messages/a/b", "messages", "a/b"),
                ("__depot_http_cache", "r8:messages/1", "messages", "1"),
                ("__depot_http_cache", "p8:messages/http://x", "__depot_http_cache", "p8:messages/http://x"),
                ("__depot_deliveries", "#sequence", "__depot_deliveries", "#sequence"),
                ("__depot_moved_ids", "99:messages/1", "__depot_moved_ids", "99:messages/1"),
                ("messages", "8:messages/1", "messages", "8:messages/1"),
            ])
        func depotRowsMapToTheirEntity(row: (String, String, String, String)) {
            let entity = PostgresEntityLock.entity(collection: row.0, id: row.1)
            #expect(entity.collection == row.2)
            #expect(entity.id == row.3)
            #expect(
                PostgresEntityLock(schema: "s", collection: row.0, id: row.1)
                    == PostgresEntityLock(schema: "s", collection: row.2, id: row.3))
        }

        @Test("a collection's list-cache token takes no lock: every write of the collection replaces it")
        func listTokenIsUnlocked() {
            #expect(PostgresEntityLock(schema: "s", collection: "__depot_http_cache_lists", id: "messages") == nil)
            #expect(PostgresEntityLock(schema: "s", collection: "messages", id: "1") != nil)
        }

        /// A stream that yields true once `work` finished without throwing (false if it threw).
        static func finished(_ work: @escaping @Sendable () async throws -> Void) -> AsyncStream<Bool> {
            let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
            Task {
                continuation.yield((try? await work()) != nil)
                continuation.finish()
            }
            return stream
        }

        /// Returns once some transaction of the server waits for an advisory lock (5 s at most).
        static func waitForLockWaiter(_ storage: PostgresStorage) async throws {
            for _ in 0..<500 {
                let rows = try await storage.rows(
                    "read the locks", "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                if try rows.first?.decode(Int64.self) ?? 0 > 0 { return }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw DepotError(.timeout, "no transaction waited for an entity's lock")
        }
    }
#endif
