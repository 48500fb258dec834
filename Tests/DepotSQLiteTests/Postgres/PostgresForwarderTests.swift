#if Postgres
    import Depot
    @testable import DepotPostgres
    import DepotTesting
    import Foundation
    import Testing

    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresForwarderTests {
        /// Entities in the race: 20 (40 writes) by default, to keep the suite fast; CI sets
        /// `DEPOT_POSTGRES_RACE_ENTITIES=50` for the full 100 writes.
        static let entities =
            ProcessInfo.processInfo.environment["DEPOT_POSTGRES_RACE_ENTITIES"].flatMap(Int.init) ?? 20

        @Test("two replicas' forwarders race over queued writes (100 in CI): each sent once, each entity's in order")
        func twoReplicasRace() async throws {
            let entities = Self.entities
            try await withPostgresReplicas { first, second in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let one = OutboxMessages(store: session, storage: first, strategy: recordOnly)
                    let other = OutboxMessages(store: session, storage: second, strategy: recordOnly)
                    // Given: writes queued through both replicas: each created through
                    // one replica and deleted through the other (a delete of a created entity not yet
                    // sent cancels it, so each create is marked sent first by a claim that lapses)
                    for index in 0..<entities {
                        let repository = index.isMultiple(of: 2) ? one : other
                        _ = try await repository.create(Message(id: "m\(index)", text: "message \(index)")).value
                    }
                    let created = try await first.outbox(OutboxQuery(selection: .all)).map(\.sequence)
                    try await first.transaction { tx in
                        // attempts = 1 with a lease that has already ended: sendable, never folded into
                        _ = try tx.claimOutbox(
                            sequences: created, lease: OutboxLease(owner: Conformance.peerA, expiry: .distantPast),
                            now: Date())
                    }
                    for index in 0..<entities {
                        let repository = index.isMultiple(of: 2) ? other : one
                        _ = try await repository.delete(id: "m\(index)").value
                    }
                    #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 2 * entities)
                    let configuration = ForwarderConfiguration(maximumConcurrency: 4, jitter: 0, pageSize: 16)
                    let forwarders = [
                        Forwarder(for: one, configuration: configuration),
                        Forwarder(for: other, configuration: configuration),
                    ]
                    // When: both flush at once
                    let reports = try await withThrowingTaskGroup(of: ForwardingReport.self) { group in
                        for forwarder in forwarders { group.addTask { try await forwarder.flush().value } }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    // Then: 100 writes applied once each, and each entity's create before its delete
                    #expect(reports.map(\.delivered).reduce(0, +) == 2 * entities)
                    #expect(server.appliedWrites.count == 2 * entities)
                    #expect(Set(server.appliedWrites.compactMap(\.idempotencyKey)).count == 2 * entities)
                    #expect(server.replayedWrites == 0)
                    for index in 0..<entities {
                        let methods = server.appliedWrites.filter { $0.id == "m\(index)" }.sorted {
                            $0.sequence < $1.sequence
                        }
                        .map(\.method)
                        #expect(methods == ["POST", "DELETE"], "m\(index): \(methods)")
                    }
                    // (before the fix, a claim that met the other replica's claim transaction
                    // took the entries it skipped for held: both passes left them, unleased)
                    let left = try await first.outbox(OutboxQuery(selection: .all))
                    #expect(left.isEmpty, "left in the outbox: \(left.map { "\($0.operation) \($0.entityID)" })")
                    #expect(reports.flatMap(\.errors).isEmpty, "\(reports.flatMap(\.errors))")
                }
            }
        }

        @Test("a running forwarder on one replica is woken by a write committed through another")
        func forwarderWokenAcrossReplicas() async throws {
            try await withPostgresReplicas { first, second in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let forwarder = Forwarder(
                        for: OutboxMessages(store: session, storage: second, strategy: recordOnly),
                        configuration: ForwarderConfiguration(jitter: 0, pollInterval: .seconds(3600)))
                    // Given: a forwarder running on the second replica, polling only once an hour,
                    // that has delivered what was queued when it started (its first pass is over)
                    _ = try await OutboxMessages(store: session, storage: second, strategy: recordOnly)
                        .create(Message(id: "m0", text: "first")).value
                    let events = forwarder.events
                    forwarder.start()
                    #expect(try await Self.delivered(events)?.entityID == "m0")
                    // When: the first replica records a create
                    let writer = OutboxMessages(store: session, storage: first, strategy: recordOnly)
                    _ = try await writer.create(Message(id: "m1", text: "hello")).value
                    // Then: the second replica's forwarder delivers it, woken by the change notice
                    let delivered = try await Self.delivered(events)
                    await forwarder.stop()
                    #expect(delivered?.entityID == "m1")
                    #expect(server.requests.filter { $0.method == "POST" }.count == 2)
                }
            }
        }

        /// The next entry `events` reports delivered, or nil after 10 seconds.
        static func delivered(_ events: AsyncStream<ForwarderEvent>) async throws -> OutboxEntry? {
            try await withThrowingTaskGroup(of: OutboxEntry?.self) { group in
                group.addTask {
                    for await event in events { if case .delivered(let entry) = event { return entry } }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        }
    }
#endif
