#if Postgres
    import PostgresNIO

    /// The advisory lock of one entity: what a write transaction holds from its first read or write
    /// of the entity until it ends, so two transactions that read, decide and write one entity
    /// (a local write folding into the outbox, a create's conflict check, a server's answer moving
    /// an id) never interleave, while transactions of different entities run in parallel.
    ///
    /// The lock is `pg_advisory_xact_lock(hashtextextended(<text>, 0))` on a text naming the
    /// schema, the collection and the id, so every replica computes the same key (a collision only
    /// makes two entities wait for each other). Depot's own per-entity rows (a moved id, a delivery
    /// mark, a quarantined row, a record's HTTP-cache entry, kept in collections of Depot's own
    /// under `<length>:<collection>/<id>`) take the lock of the entity they describe, so an id
    /// move and a write under the old id meet on one lock.
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

        /// Depot's collections whose rows are written blind and read without deciding a write on
        /// them: a collection's list-cache token (every write of the collection replaces it with a
        /// new random one; whichever commits last, the lists cached before are stale). Locking it
        /// would make every write of a collection wait for every other.
        static let unlockedCollections: Set<String> = ["__depot_http_cache_lists"]

        static func < (left: PostgresEntityLock, right: PostgresEntityLock) -> Bool {
            left.text.utf8.lexicographicallyPrecedes(right.text.utf8)
        }

        /// Depot's collections whose record ids name an entity (`<length>:<collection>/<id>`,
        /// `r<length>:…` for a record's cache entry).
        static let perEntityCollections: Set<String> = [
            "__depot_moved_ids", "__depot_deliveries", "__depot_quarantine", "__depot_http_cache",
        ]

        /// Depot's collections read by many transactions and written by few: the schema versions
        /// (read by local writes, written by a migration) and the open batches (read by every
        /// claim, written by a batch push). Their reads share the lock, their writes hold it alone.
        static let sharedReadCollections: Set<String> = ["__depot_schema_versions", openBatches.collection]

        /// The row of the open batches (`OutboxBatch`): every claim reads it after claiming, so a
        /// claim shares its lock before it tries any entity's, and never waits for it holding one.
        static let openBatches = (collection: "__depot_outbox_batches", id: "open")

        /// The entity a row of `collection` with `id` describes: itself, unless it is one of
        /// Depot's per-entity rows.
        static func entity(collection: String, id: String) -> (collection: String, id: String) {
            guard perEntityCollections.contains(collection) else { return (collection, id) }
            var text = Substring(id)
            if collection == "__depot_http_cache", text.first == "r" { text = text.dropFirst() }
            guard let colon = text.firstIndex(of: ":"), let length = Int(text[..<colon]), length >= 0 else {
                return (collection, id)
            }
            let rest = text.utf8[text.utf8.index(after: colon)...]
            guard rest.count > length else { return (collection, id) }
            let split = rest.index(rest.startIndex, offsetBy: length)
            guard rest[split] == UInt8(ascii: "/"), let name = String(rest[..<split]),
                let entity = String(rest[rest.index(after: split)...])
            else { return (collection, id) }
            return (name, entity)
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
