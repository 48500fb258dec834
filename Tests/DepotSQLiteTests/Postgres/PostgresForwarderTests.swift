#if Postgres
    import Depot
    @testable import DepotPostgres
    import DepotTesting
    import Foundation
    import Testing

    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct PostgresForwarderTests {
        @Test("two replicas' forwarders race over 100 queued writes: each sent once, each entity's writes in order")
        func twoReplicasRace() async throws {
            try await withPostgresReplicas { first, second in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let one = OutboxMessages(store: session, storage: first, strategy: recordOnly)
                    let other = OutboxMessages(store: session, storage: second, strategy: recordOnly)
                    // Given: 100 writes queued through both replicas: 50 entities, each created through
                    // one replica and deleted through the other (a delete of a created entity not yet
                    // sent cancels it, so each create is marked sent first by a claim that lapses)
                    for index in 0..<50 {
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
                    for index in 0..<50 {
                        let repository = index.isMultiple(of: 2) ? other : one
                        _ = try await repository.delete(id: "m\(index)").value
                    }
                    #expect(try await second.outboxCount(OutboxQuery(selection: .all)) == 100)
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
                    #expect(reports.map(\.delivered).reduce(0, +) == 100)
                    #expect(server.appliedWrites.count == 100)
                    #expect(Set(server.appliedWrites.compactMap(\.idempotencyKey)).count == 100)
                    #expect(server.replayedWrites == 0)
                    for index in 0..<50 {
                        let methods = server.appliedWrites.filter { $0.id == "m\(index)" }.sorted { $0.sequence < $1.sequence }
                            .map(\.method)
                        #expect(methods == ["POST", "DELETE"], "m\(index): \(methods)")
                    }
                    #expect(try await first.outboxCount(OutboxQuery(selection: .all)) == 0)
                }
            }
        }
    }
#endif
