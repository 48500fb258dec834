#if Postgres
    /// How a ``PostgresStorage``'s write transactions keep out of each other's way: a measurement
    /// switch (``PostgresStorage/open(url:schema:logger:writeLocking:connectionTimeout:)``); an app's store always
    /// locks per entity.
    @_spi(Measurement)
    public enum PostgresWriteLocking: Sendable, Hashable {
        /// A transaction-level advisory lock per entity, taken before the transaction's first read
        /// or write of it; claims skip entities another transaction holds. The store's own way.
        case entity
        /// One advisory lock for the whole schema, taken by every write transaction first: every
        /// write of every replica one at a time (the store's way before per-entity locks).
        case schema
        /// No lock: bodies that read, decide and write race (a measurement of the locks' cost only).
        case none
    }
#endif
