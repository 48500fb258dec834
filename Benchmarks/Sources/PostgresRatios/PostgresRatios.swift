import Depot
@_spi(Measurement) import DepotPostgres
import Foundation
import Logging
import PostgresNIO

// PostgresStorage against raw postgres-nio doing the equivalent statements, in the same run, on
// the database DEPOT_POSTGRES_URL names (`scripts/postgres start` prints one): single-record
// upserts (INSERT … ON CONFLICT DO UPDATE), and local writes that record an outbox entry (the
// record's upsert and the entry's INSERT in one transaction). Each Depot row also says how many
// statements (round trips) a write sent, and is measured again on a store that takes one schema-wide
// write lock (the store's way before per-entity locks) and on one that takes no lock (a measurement
// only: bodies that read, decide and write would race).

@MainActor func postgresRatios() async throws {
    guard let url = ProcessInfo.processInfo.environment["DEPOT_POSTGRES_URL"] else {
        print("== Postgres: skipped (set DEPOT_POSTGRES_URL, e.g. from scripts/postgres start)")
        return
    }
    let count = 2_000
    let run = UUID().uuidString.prefix(8).lowercased()
    print("== Postgres: \(count) single-record upserts, \(count) writes recording an outbox entry, one at a time")
    let storage = try await PostgresStorage.open(url: url, schema: "ratios_\(run)")
    let logger = Logger(label: "ratios") { _ in SwiftLogNoOpLogHandler() }
    let client = PostgresClient(configuration: try rawConfiguration(url), backgroundLogger: logger)
    let clientTask = Task { await client.run() }
    defer { clientTask.cancel() }
    let table = "ratios_raw_\(run)"
    try await client.query(
        """
        CREATE TABLE \(unescaped: table) (collection text NOT NULL, id text NOT NULL, object jsonb NOT NULL,
            sync_state text NOT NULL, snapshot jsonb, PRIMARY KEY (collection, id))
        """)
    try await client.query(
        """
        CREATE TABLE \(unescaped: table)_outbox (sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            collection text NOT NULL, entity_id text NOT NULL, operation text NOT NULL, payload text,
            idempotency_key text NOT NULL, attempts integer NOT NULL DEFAULT 0)
        """)
    let objects: [(id: String, text: String, object: JSONObject)] = (0..<count).map { index in
        let object: JSONObject = ["id": .string("p\(index)"), "text": .string("post number \(index)")]
        return ("p\(index)", String(decoding: try! JSON.object(object).serialized(), as: UTF8.self), object)
    }

    let rawUpsert = try await time {
        for entry in objects {
            try await client.query(
                """
                INSERT INTO \(unescaped: table) (collection, id, object, sync_state, snapshot)
                VALUES ('posts', \(entry.id), \(entry.text)::jsonb, 'synced', \(entry.text)::jsonb)
                ON CONFLICT (collection, id) DO UPDATE SET object = EXCLUDED.object,
                    sync_state = EXCLUDED.sync_state, snapshot = EXCLUDED.snapshot
                """)
        }
    }
    func upserts(_ storage: PostgresStorage) async throws -> (seconds: Double, statements: Double) {
        let before = storage.statementCount
        let elapsed = try await time {
            for entry in objects {
                try await storage.upsert(
                    [StoredRecord(collection: "posts", id: entry.id, object: entry.object, syncState: .synced)])
            }
        }
        return (elapsed.seconds, Double(storage.statementCount - before) / Double(count))
    }
    func records(_ storage: PostgresStorage) async throws -> (seconds: Double, statements: Double) {
        let before = storage.statementCount
        let elapsed = try await time {
            for entry in objects {
                try await storage.transaction { tx in
                    try tx.upsert(
                        StoredRecord(collection: "notes", id: entry.id, object: entry.object, syncState: .created))
                    try tx.recordOutbox(
                        collection: "notes", entityID: entry.id, operation: .create, payload: .object(entry.object))
                }
            }
        }
        return (elapsed.seconds, Double(storage.statementCount - before) / Double(count))
    }
    let depotUpsert = try await upserts(storage)
    let rawRecord = try await time {
        for entry in objects {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: table) (collection, id, object, sync_state)
                    VALUES ('notes', \(entry.id), \(entry.text)::jsonb, 'created')
                    ON CONFLICT (collection, id) DO UPDATE SET object = EXCLUDED.object,
                        sync_state = EXCLUDED.sync_state
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: table)_outbox (collection, entity_id, operation, payload, idempotency_key)
                    VALUES ('notes', \(entry.id), 'create', \(entry.text), \(UUID().uuidString))
                    """, logger: logger)
            }
        }
    }
    let depotRecord = try await records(storage)
    let schemaLocked = try await PostgresStorage.open(
        url: url, schema: "ratios_\(run)_schema", writeLocking: .schema)
    let schemaUpsert = try await upserts(schemaLocked)
    let schemaRecord = try await records(schemaLocked)
    await schemaLocked.close()
    let unlocked = try await PostgresStorage.open(url: url, schema: "ratios_\(run)_unlocked", writeLocking: .none)
    let unlockedUpsert = try await upserts(unlocked)
    let unlockedRecord = try await records(unlocked)
    await unlocked.close()
    try await client.query("DROP TABLE \(unescaped: table), \(unescaped: table)_outbox")
    try await client.query("DROP SCHEMA \(unescaped: "ratios_\(run)") CASCADE")
    try await client.query("DROP SCHEMA \(unescaped: "ratios_\(run)_schema") CASCADE")
    try await client.query("DROP SCHEMA \(unescaped: "ratios_\(run)_unlocked") CASCADE")
    await storage.close()
    row("raw postgres-nio INSERT … ON CONFLICT (baseline)", rawUpsert.seconds, per: count, baseline: rawUpsert.seconds)
    row(statements("PostgresStorage upsert", depotUpsert), depotUpsert.seconds, per: count, baseline: rawUpsert.seconds)
    row(
        statements("  the same, one schema-wide lock (before)", schemaUpsert), schemaUpsert.seconds, per: count,
        baseline: rawUpsert.seconds)
    row(
        statements("  the same, no write lock (measurement)", unlockedUpsert), unlockedUpsert.seconds, per: count,
        baseline: rawUpsert.seconds)
    row(
        "raw postgres-nio upsert + outbox INSERT (baseline)", rawRecord.seconds, per: count, baseline: rawRecord.seconds
    )
    row(
        statements("PostgresStorage tx: upsert + recordOutbox", depotRecord), depotRecord.seconds, per: count,
        baseline: rawRecord.seconds)
    row(
        statements("  the same, one schema-wide lock (before)", schemaRecord), schemaRecord.seconds, per: count,
        baseline: rawRecord.seconds)
    row(
        statements("  the same, no write lock (measurement)", unlockedRecord), unlockedRecord.seconds, per: count,
        baseline: rawRecord.seconds)
}

/// `name` with the statements (round trips) one operation sent.
private func statements(_ name: String, _ measured: (seconds: Double, statements: Double)) -> String {
    name + String(format: " [%.0f rt]", measured.statements)
}

/// The client configuration for `url` (`postgres://user[:password]@host[:port]/database`), TLS off.
private func rawConfiguration(_ url: String) throws -> PostgresClient.Configuration {
    guard let components = URLComponents(string: url), let host = components.host else {
        throw DepotError(.invalidRequest, "DEPOT_POSTGRES_URL is not a postgres:// URL: \(url)")
    }
    let database = String(components.path.drop { $0 == "/" })
    return PostgresClient.Configuration(
        host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
        password: components.password, database: database.isEmpty ? nil : database, tls: .disable)
}
