#if Postgres
    import Depot
    import PostgresNIO

    /// The advisory lock of one entity: what a write transaction holds from its first read or write
    /// of the entity until it ends, so two transactions that read, decide and write one entity
    /// (a local write folding into the outbox, a create's conflict check, a server's answer moving
    /// an id) never interleave, while transactions of different entities run in parallel.
    ///
    /// The lock is `pg_advisory_xact_lock(hashtextextended(<text>, 0))` on a text naming the
    /// schema, the collection and the id, so every replica computes the same key (a collision only
    /// makes two entities wait for each other). Depot's own per-entity rows (a moved id, a delivery
    /// mark, a quarantined row, a record's HTTP-cache entry) take the lock of the entity they
    /// describe, as Depot names it (``DepotRows``), so an id move and a write under the old id
    /// meet on one lock.
    struct PostgresEntityLock: Hashable, Comparable, Sendable {
        /// The text the key is hashed from.
        let text: String

        /// The lock of `id` of `collection` in `schema`; nil for a row no transaction needs to
        /// lock (``unlockedCollections``).
        init?(schema: String, collection: String, id: String) {
            guard !Self.unlockedCollections.contains(collection) else { return nil }
            let (collection, id) = Self.entity(collection: collection, id: id)
            text = "\(schema)|\(collection.utf8.count):\(collection)/\(id)"
        }

        /// Depot's collections whose rows no transaction needs to lock
        /// (``DepotRows/unlockedCollections``, named by Depot).
        static var unlockedCollections: Set<String> { DepotRows.unlockedCollections }

        static func < (left: PostgresEntityLock, right: PostgresEntityLock) -> Bool {
            left.text.utf8.lexicographicallyPrecedes(right.text.utf8)
        }

        /// Depot's collections read by many transactions and written by few
        /// (``DepotRows/sharedReadCollections``, named by Depot): their reads share the lock, their
        /// writes hold it alone.
        static var sharedReadCollections: Set<String> { DepotRows.sharedReadCollections }

        /// The row of the open batches (`OutboxBatch`): every claim reads it after claiming, so a
        /// claim shares its lock before it tries any entity's, and never waits for it holding one.
        static var openBatches: (collection: String, id: String) { DepotRows.openBatches }

        /// The entity a row of `collection` with `id` describes: itself, unless it is one of
        /// Depot's per-entity rows (``DepotRows/entity(collection:id:)``, which reads Depot's own
        /// key formats).
        static func entity(collection: String, id: String) -> (collection: String, id: String) {
            DepotRows.entity(collection: collection, id: id)
        }

        /// The SQL text of `schema`'s lock of an outbox row's entity, from its columns (as
        /// ``init(schema:collection:id:)`` spells it): `$<bind>` is the schema's prefix.
        static func outboxRowText(prefixBind bind: Int) -> String {
            "$\(bind) || octet_length(collection)::text || ':' || collection || '/' || entity_id"
        }

        /// The prefix ``outboxRowText(prefixBind:)`` binds.
        static func prefix(schema: String) -> String { "\(schema)|" }

        /// One statement taking `locks` in their order (blocking), or sharing them.
        static func statement(_ locks: [PostgresEntityLock], shared: Bool = false) -> PostgresQuery {
            let function = shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
            if locks.count == 1 {
                return "SELECT \(unescaped: function)(hashtextextended(\(locks[0].text), 0))"
            }
            return
                "SELECT count(\(unescaped: function)(hashtextextended(k, 0))) FROM unnest(\(locks.map(\.text))::text[]) AS k"
        }
    }
#endif
