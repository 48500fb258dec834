#if Postgres
    import Depot
    @testable import DepotPostgres
    import DepotTesting
    import Foundation
    import PostgresNIO
    import Testing

    @Suite(.enabled(if: PostgresFixture.isEnabled))
    struct TransactionalOutboxTests {
        @Test("the app's row and the write commit together; the write is sent once, under its key")
        func committedTogether() async throws {
            try await withPostgresReplicas { storage, replica in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let messages = OutboxMessages(store: session, storage: storage, strategy: recordOnly)
                    let orders = "\(storage.schema).orders"
                    try await storage.withTransaction { tx in
                        try await tx.query("CREATE TABLE \(unescaped: orders) (id text PRIMARY KEY)")
                    }
                    // When: one transaction inserts the app's row and creates a message
                    try await storage.withTransaction { tx in
                        try await tx.query("INSERT INTO \(unescaped: orders) (id) VALUES (\("o1"))")
                        try await messages.create(Message(id: "m1", text: "for o1"), in: tx)
                    }
                    let entry = try #require(try await storage.outbox(OutboxQuery(selection: .all)).first)
                    // and the other replica's forwarder runs
                    let forwarder = Forwarder(
                        for: OutboxMessages(store: session, storage: replica, strategy: recordOnly),
                        configuration: ForwarderConfiguration(jitter: 0))
                    let report = try await forwarder.flush().value
                    // Then: one POST, under the entry's key; the app's row and the record are there
                    #expect(report.delivered == 1)
                    #expect(server.requests.filter { $0.method == "POST" }.count == 1)
                    #expect(server.appliedWrites.map(\.idempotencyKey) == [entry.idempotencyKey])
                    let rows = try await storage.withTransaction { tx in
                        try await tx.query("SELECT id FROM \(unescaped: orders)").map { try $0.decode(String.self) }
                    }
                    #expect(rows == ["o1"])
                    #expect(try await replica.fetch(collection: "messages", id: "m1")?.syncState == .synced)
                }
            }
        }

        @Test("a body that throws after both writes leaves neither the app's row, nor the record, nor an entry")
        func rolledBackTogether() async throws {
            try await withPostgresReplicas { storage, replica in
                try await withStubServer { server in
                    server.resource("messages")
                    let session = NetworkingSession(url: server.url)
                    let messages = OutboxMessages(store: session, storage: storage, strategy: recordOnly)
                    let orders = "\(storage.schema).orders"
                    try await storage.withTransaction { tx in
                        try await tx.query("CREATE TABLE \(unescaped: orders) (id text PRIMARY KEY)")
                    }
                    // When: the body throws after inserting the row and creating the message
                    await #expect(throws: ConformanceFailure.self) {
                        try await storage.withTransaction { tx in
                            try await tx.query("INSERT INTO \(unescaped: orders) (id) VALUES (\("o1"))")
                            try await messages.create(Message(id: "m1", text: "for o1"), in: tx)
                            throw ConformanceFailure()
                        }
                    }
                    let forwarder = Forwarder(
                        for: OutboxMessages(store: session, storage: replica, strategy: recordOnly),
                        configuration: ForwarderConfiguration(jitter: 0))
                    let report = try await forwarder.flush().value
                    // Then: nothing anywhere, and nothing sent
                    let rows = try await storage.withTransaction { tx in
                        try await tx.query("SELECT id FROM \(unescaped: orders)").count
                    }
                    #expect(rows == 0)
                    #expect(try await replica.fetch(collection: "messages", id: "m1") == nil)
                    #expect(try await replica.outboxCount(OutboxQuery(selection: .all)) == 0)
                    #expect(report.delivered == 0 && server.requests.isEmpty)
                }
            }
        }

        @Test("a repository on another store cannot write in the transaction")
        func otherStoreRefused() async throws {
            try await withPostgresReplicas { storage, replica in
                let session = NetworkingSession(url: URL(string: "http://127.0.0.1:9")!)
                let elsewhere = OutboxMessages(store: session, storage: replica, strategy: recordOnly)
                await #expect(throws: DepotError.self) {
                    try await storage.withTransaction { tx in
                        try await elsewhere.create(Message(id: "m1", text: "x"), in: tx)
                    }
                }
            }
        }
    }
#endif
