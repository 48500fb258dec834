#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    // The store's tables, in its own schema, created on first use and upgraded by numbered steps
    // recorded in `schema_version`. Two processes opening a new database at once are serialized by
    // an advisory lock, so each step runs once.

    extension PostgresStorage {
        /// The schema version this code writes.
        static let schemaVersion = 3

        /// The advisory lock key every process takes while it creates or upgrades a schema.
        static let schemaLockKey = lockKey("schema creation")

        /// Creates the schema and its tables if they are missing, and runs the steps its recorded
        /// version lacks, in one transaction.
        func createSchema() async throws {
            try await Self.storageErrors("cannot create the Postgres store \(schema)") {
                try await leasing("cannot create the Postgres store \(schema)") { connection in
                    func run(_ query: PostgresQuery) async throws -> PostgresQueryResult {
                        let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
                        return try await future.get()
                    }
                    _ = try await run("BEGIN")
                    do {
                        _ = try await run("SELECT pg_advisory_xact_lock(\(Self.schemaLockKey))")
                        _ = try await run("CREATE SCHEMA IF NOT EXISTS \(unescaped: quoted)")
                        _ = try await run(
                            "CREATE TABLE IF NOT EXISTS \(unescaped: quoted).schema_version (version integer NOT NULL)")
                        let found = try await run("SELECT max(version) FROM \(unescaped: quoted).schema_version")
                        let version = try found.first?.decode(Int?.self) ?? 0
                        if version > Self.schemaVersion {
                            throw DepotError(
                                .storage,
                                "the Postgres store \(schema) has schema version \(version), newer than this code's \(Self.schemaVersion)"
                            )
                        }
                        if version < 1 {
                            for statement in createStatements { _ = try await run(statement) }
                            _ = try await run("INSERT INTO \(unescaped: quoted).schema_version (version) VALUES (1)")
                        }
                        if version < 2 {
                            // Its function, `append_outbox_if_first`, is made by version 3's step.
                            _ = try await run("INSERT INTO \(unescaped: quoted).schema_version (version) VALUES (2)")
                        }
                        if version < 3 {
                            for statement in accountStatements { _ = try await run(statement) }
                            _ = try await run(appendOutboxIfFirstFunction)
                            _ = try await run("INSERT INTO \(unescaped: quoted).schema_version (version) VALUES (3)")
                        }
                        _ = try await run(createLeaseOwners)
                        _ = try await run("COMMIT")
                    } catch {
                        do { _ = try await run("ROLLBACK") } catch { try? await connection.close() }
                        throw error
                    }
                }
            }
        }

        /// Version 3: the account an outbox entry was made under (`OutboxEntry.account`, NULL for
        /// none declared, as every entry written before it is), and `append_outbox_if_first` (of
        /// version 2) replaced by one that takes it.
        private var accountStatements: [PostgresQuery] {
            [
                "ALTER TABLE \(unescaped: quoted).outbox ADD COLUMN IF NOT EXISTS account text",
                """
                DROP FUNCTION IF EXISTS \(unescaped: quoted).append_outbox_if_first(
                    text, text, text, text, text, integer, integer, double precision, text, boolean, integer, bytea,
                    text, text, double precision, text, text)
                """,
            ]
        }

        /// Version 2 (made again by version 3, with the account): `append_outbox_if_first`, an outbox entry added unless its entity has one
        /// (then that entity's last entry comes back), with the outbox's change notice when added.
        /// A function, so its look-up and insert are planned once per connection: sent as
        /// statements, their planning cost more than running them (`EXPLAIN ANALYZE` of the look-up:
        /// 0.14 ms planning, 0.02 ms execution), a local write's largest cost over a raw one.
        private var appendOutboxIfFirstFunction: PostgresQuery {
            let columns =
                "collection, entity_id, operation, payload, idempotency_key, attempts, failures, next_attempt, "
                + "last_error, rejected, rejected_status, rejected_body, rejected_message, lease_owner, lease_expiry, "
                + "account"
            return PostgresQuery(
                unsafeSQL: """
                    CREATE OR REPLACE FUNCTION \(quoted).append_outbox_if_first(
                        p_collection text, p_entity_id text, p_operation text, p_payload text, p_idempotency_key text,
                        p_attempts integer, p_failures integer, p_next_attempt double precision, p_last_error text,
                        p_rejected boolean, p_rejected_status integer, p_rejected_body bytea, p_rejected_message text,
                        p_lease_owner text, p_lease_expiry double precision, p_account text, p_channel text,
                        p_notice text)
                    RETURNS TABLE (entry \(quoted).outbox, added boolean)
                    LANGUAGE plpgsql AS $depot$
                    DECLARE
                        found_row \(quoted).outbox;
                    BEGIN
                        SELECT * INTO found_row FROM \(quoted).outbox AS o
                            WHERE o.collection = p_collection AND o.entity_id = p_entity_id
                            ORDER BY o.sequence DESC LIMIT 1;
                        IF FOUND THEN
                            entry := found_row;
                            added := false;
                            RETURN NEXT;
                            RETURN;
                        END IF;
                        INSERT INTO \(quoted).outbox (\(columns))
                            VALUES (p_collection, p_entity_id, p_operation, p_payload, p_idempotency_key, p_attempts,
                                p_failures, p_next_attempt, p_last_error, p_rejected, p_rejected_status, p_rejected_body,
                                p_rejected_message, p_lease_owner, p_lease_expiry, p_account)
                            RETURNING * INTO found_row;
                        IF p_channel IS NOT NULL THEN
                            PERFORM pg_notify(p_channel, p_notice);
                        END IF;
                        entry := found_row;
                        added := true;
                        RETURN NEXT;
                    END
                    $depot$
                    """)
        }

        /// Version 1: records (ids compared bytewise, `COLLATE "C"`) and the outbox, with every
        /// field of an `OutboxEntry`. A record's object and snapshot are `jsonb`, except JSON that
        /// `jsonb` cannot hold (a `\u0000` in a string or key), kept as text in `object_text` /
        /// `snapshot_text` instead; outbox payloads are text, as the server will receive them.
        private var createStatements: [PostgresQuery] {
            [
                """
                CREATE TABLE \(unescaped: quoted).records (
                    collection text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    object jsonb,
                    object_text text,
                    sync_state text NOT NULL,
                    snapshot jsonb,
                    snapshot_text text,
                    etag text,
                    snapshot_is_object boolean NOT NULL DEFAULT false,
                    PRIMARY KEY (collection, id)
                )
                """,
                "CREATE INDEX records_sync_state ON \(unescaped: quoted).records (collection, sync_state, id)",
                """
                CREATE TABLE \(unescaped: quoted).outbox (
                    sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    collection text COLLATE "C" NOT NULL,
                    entity_id text COLLATE "C" NOT NULL,
                    operation text NOT NULL,
                    payload text,
                    idempotency_key text NOT NULL,
                    attempts integer NOT NULL DEFAULT 0,
                    failures integer NOT NULL DEFAULT 0,
                    next_attempt double precision,
                    last_error text,
                    rejected boolean NOT NULL DEFAULT false,
                    rejected_status integer,
                    rejected_body bytea,
                    rejected_message text,
                    lease_owner text,
                    lease_expiry double precision
                )
                """,
                "CREATE INDEX outbox_entity ON \(unescaped: quoted).outbox (collection, entity_id, sequence)",
            ]
        }
    }
#endif
