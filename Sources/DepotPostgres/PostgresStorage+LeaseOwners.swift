#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    // Whether the process behind an outbox lease is alive, from a fact the database keeps: every
    // process that opens the store holds a shared advisory lock, keyed by its process token, on
    // the connection its change feed listens on, and registers the token in `lease_owners` once
    // it holds it. PostgreSQL drops a session's advisory locks when the session ends, however the
    // process ended (SIGKILL included), so a registered owner whose lock no session holds is gone,
    // and its leases are free at once. Time expiry stays for an owner that is alive but hung. An
    // owner that never registered (an older Depot) is judged by its expiry alone; a lock key two
    // tokens share can only make a dead owner look alive (expiry then frees it), never the reverse.

    extension PostgresStorage {
        /// The table of registered owners, created on every open (an older Depot ignores it).
        var createLeaseOwners: PostgresQuery {
            "CREATE TABLE IF NOT EXISTS \(unescaped: quoted).lease_owners (token text PRIMARY KEY, lock_key bigint NOT NULL)"
        }

        /// The advisory lock key of the process `token`: 63 bits, so `pg_locks`' two halves
        /// (`classid`, `objid`) join back to it.
        static func ownerLockKey(_ token: String) -> Int64 {
            Int64(bitPattern: FNV1a.hash("depot-owner:\(token)".utf8)) & Int64.max
        }

        /// On the change feed's connection: holds this process's owner lock for the connection's
        /// life, then registers the token (in that order, so a registered owner always holds its
        /// lock while it lives). Run again on every connection the feed listens on.
        func holdOwnerLock(on connection: PostgresConnection) async throws {
            let token = LeaseOwner.process.token
            let key = Self.ownerLockKey(token)
            _ = try await connection.query("SELECT pg_advisory_lock_shared(\(key))", logger: logger).get()
            _ = try await connection.query(
                """
                INSERT INTO \(unescaped: quoted).lease_owners (token, lock_key) VALUES (\(token), \(key))
                ON CONFLICT (token) DO NOTHING
                """, logger: logger
            ).get()
        }
    }

    extension PostgresTransaction {
        /// Frees the leases of registered owners whose session is gone (no session holds their
        /// owner lock), and forgets those owners: one query for the ended owners, one read of the
        /// leased entries' owners, one `UPDATE`.
        public func releaseLeasesOfEndedOwners() throws -> Int {
            let schema = storage.quoted
            let mine = LeaseOwner.process.token
            let rows = try execute(
                "find the senders that ended",
                """
                SELECT o.token FROM \(unescaped: schema).lease_owners o
                WHERE o.token <> \(mine) AND NOT EXISTS (
                    SELECT 1 FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND (l.classid::bigint << 32) + l.objid::bigint = o.lock_key)
                """)
            let ended = Set(
                try PostgresStorage.storageErrors("cannot read the ended senders") {
                    try rows.map { try $0.decode(String.self) }
                })
            guard !ended.isEmpty else { return 0 }
            let leased = try execute(
                "read the leases' owners",
                "SELECT DISTINCT lease_owner FROM \(unescaped: schema).outbox WHERE lease_owner IS NOT NULL")
            let owners = try PostgresStorage.storageErrors("cannot read the leases' owners") {
                try leased.map { try $0.decode(String.self) }
            }.filter { LeaseOwner.processToken(of: $0).map(ended.contains) ?? false }
            var freed = 0
            if !owners.isEmpty {
                freed = try changing(
                    "free the leases of ended senders",
                    """
                    UPDATE \(unescaped: schema).outbox SET lease_owner = NULL, lease_expiry = NULL
                    WHERE lease_owner = ANY(\(owners))
                    """)
            }
            let tokens = Array(ended)
            _ = try changing(
                "forget the ended senders",
                "DELETE FROM \(unescaped: schema).lease_owners WHERE token = ANY(\(tokens))")
            return freed
        }
    }
#endif
