import Depot
import Foundation
import GRDB

/// A `Storage` in an SQLite file, on GRDB: entities stored as JSON per collection with
/// their sync state and last server snapshot; criteria evaluated in SQL with `json_extract`;
/// WAL mode (many readers, one writer); the schema created and migrated by versioned migrations.
/// Deleted rows are overwritten on disk (`PRAGMA secure_delete`), not left in free pages.
///
/// Keep one file per account: open the signed-in user's store, and at logout ``erase(force:)``
/// it, which removes the file once nothing in it still waits for the server. A store is never
/// shared between accounts, so nothing of one user's data can reach another's requests.
///
/// ```swift
/// let storage = try SQLiteStorage(path: "/var/lib/app/depot.sqlite", indexes: ["messages": ["author"]])
/// try await storage.upsert([record])
/// let anns = try await storage.fetch(collection: "messages", matching: Criteria(["author": "ann"]))
///
/// let accountStore = try SQLiteStorage(path: "\(directory)/\(accountID).sqlite")  // one file per account
/// ```
public final class SQLiteStorage: Storage {
    let writer: any DatabaseWriter
    /// Open, closed or erased: checked before and inside every database access.
    let lifecycle = LockedValue(Lifecycle.open)
    /// The file's path, or nil for an in-memory store.
    public let path: String?
    /// collection → keys with an index, as declared at opening.
    private let indexes: [String: Set<String>]
    /// The owner locks beside the file, which tell a dead sender's leases (nil in memory: one process).
    let owners: LeaseOwnerLocks?

    /// Opens (creating if needed) the store at `path` and migrates its schema.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - indexes: collection → top-level keys often used in criteria; each gets an index.
    /// - Throws: `DepotError` `.storage` when the file cannot be opened, written or migrated
    ///   (a missing directory, no permission, a file that is not a database).
    public init(path: String, indexes: [String: [String]] = [:]) throws {
        self.path = path
        self.indexes = indexes.mapValues(Set.init)
        writer = try Self.storageErrors("cannot open \(path)") {
            try DatabasePool(path: path, configuration: Self.configuration)
        }
        owners = try LeaseOwnerLocks(databasePath: path)
        try Self.migrate(writer, indexes: indexes)
    }

    private init(inMemory writer: any DatabaseWriter, indexes: [String: [String]]) throws {
        path = nil
        owners = nil
        self.indexes = indexes.mapValues(Set.init)
        self.writer = writer
        try Self.migrate(writer, indexes: indexes)
    }

    /// A store in memory, with the same SQL as a file store: for tests and caches.
    public static func inMemory(indexes: [String: [String]] = [:]) throws -> SQLiteStorage {
        let queue = try storageErrors("cannot open an in-memory database") {
            try DatabaseQueue(configuration: configuration)
        }
        return try SQLiteStorage(inMemory: queue, indexes: indexes)
    }

    /// Closes the database; later calls reject with `.storage`. Open it again with `init(path:)`.
    public func close() throws {
        try Self.storageErrors("cannot close the database") { try writer.close() }
        lifecycle.withLock { if $0 == .open { $0 = .closed } }
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.label = "Depot"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // Deleted rows and records overwritten with zeros, not left readable in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return configuration
    }

    // MARK: Schema

    static func migrate(_ writer: any DatabaseWriter, indexes: [String: [String]]) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records") { db in
            try db.execute(
                sql: """
                    CREATE TABLE records (
                        collection TEXT NOT NULL,
                        id TEXT NOT NULL,
                        object TEXT NOT NULL,
                        sync_state TEXT NOT NULL,
                        snapshot TEXT,
                        PRIMARY KEY (collection, id)
                    ) WITHOUT ROWID;
                    CREATE INDEX records_sync_state ON records(collection, sync_state);
                    """
            )
        }
        migrator.registerMigration("v2: etag") { db in
            try db.execute(sql: "ALTER TABLE records ADD COLUMN etag TEXT")
        }
        migrator.registerMigration("v3: outbox", migrate: createOutbox)
        migrator.registerMigration("v4: snapshot is object") { db in
            // 1 when the snapshot is the object itself: the text is written once, in `object`.
            try db.execute(sql: "ALTER TABLE records ADD COLUMN snapshot_is_object INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v5: outbox leases") { db in
            // Who is sending the entry and until when: claims that hold across storage objects
            // and processes on one file.
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN lease_owner TEXT;
                    ALTER TABLE outbox ADD COLUMN lease_expiry REAL;
                    """)
        }
        migrator.registerMigration("v6: lease clock", migrate: createLeaseClock)
        migrator.registerMigration("v7: outbox account") { db in
            // The account a write was made under (`OutboxEntry.account`); NULL for none declared,
            // as every entry written before this column is.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN account TEXT")
        }
        try storageErrors("cannot migrate the database") {
            try migrator.migrate(writer)
            try writer.write { db in
                for (collection, keys) in indexes {
                    for key in keys {
                        guard isPlainKey(key) else {
                            throw DepotError(
                                .invalidRequest,
                                "cannot index \(key.debugDescription): index keys cannot contain a quote, a backslash or a control character"
                            )
                        }
                        // Earlier versions named it so that two keys could share one index (see
                        // `legacyIndexName`); that index is dropped for the unambiguous one.
                        let legacy = legacyIndexName(collection, key)
                        if legacy != indexName(collection, key) {
                            try db.execute(sql: "DROP INDEX IF EXISTS \"\(legacy)\"")
                        }
                        try db.execute(
                            sql:
                                "CREATE INDEX IF NOT EXISTS \"\(indexName(collection, key))\" ON records(collection, \(jsonPath(key)))"
                        )
                    }
                }
            }
        }
    }

    /// The name of the declared index on `key` in `collection`: `index_`, the escaped collection,
    /// `__`, the escaped key. Lowercase ASCII letters and digits stay; every other byte of the
    /// UTF-8 form (`_` and capitals included: SQLite compares names without case) becomes `_` and
    /// two hex digits, so `__` only separates and two different pairs never share a name.
    static func indexName(_ collection: String, _ key: String) -> String {
        "index_" + escapedIndexPart(collection) + "__" + escapedIndexPart(key)
    }

    private static func escapedIndexPart(_ part: String) -> String {
        var escaped = ""
        for byte in part.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped +=
                    "_" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return escaped
    }

    /// The name earlier versions gave the index, which mapped every character but a letter or a
    /// digit to `_` (`a-b` and `a_b` collided, and so did `Author` and `author`).
    static func legacyIndexName(_ collection: String, _ key: String) -> String {
        "idx_" + (collection + "_" + key).map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    static func jsonPath(_ key: String) -> String {
        "json_extract(object, '$.\"\(key.replacingOccurrences(of: "'", with: "''"))\"')"
    }

    /// True when `key` can stand in a quoted JSON path (SQLite's path syntax has no escape for
    /// `"` and reads `\` literally), so a declared expression index can serve it.
    static func isPlainKey(_ key: String) -> Bool {
        !key.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }
    }

    /// The SQL for the value of top-level `key`: `json_extract` with a literal path for a plain
    /// key (the form declared indexes use), else a `json_each` lookup with the key bound as a
    /// parameter, so any key from data works and none reaches the SQL text.
    static func valueSQL(_ key: String, _ arguments: inout [(any DatabaseValueConvertible)?]) -> String {
        if isPlainKey(key) { return jsonPath(key) }
        arguments.append(key)
        return "(SELECT value FROM json_each(object) WHERE key = ?)"
    }

    // MARK: Storage

    /// Adds a record; rejects with `.conflict` if the id is taken.
    public func insert(_ record: StoredRecord) async throws {
        try await run("insert into \(record.collection)") { db in
            let exists =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM records WHERE collection = ? AND id = ?"),
                    arguments: [record.collection, record.id]
                ) ?? false
            if exists {
                throw DepotError(.conflict, "\(record.collection) already has a record with id \(record.id)")
            }
            try Self.write(EncodedRecord(record), db)
        }
        publish { $0.changed(record.collection, record.id) }
    }

    /// Adds or replaces every record in one transaction.
    public func upsert(_ records: [StoredRecord]) async throws {
        try await run("upsert \(records.count) records") { db in
            for record in records { try Self.write(EncodedRecord(record), db) }
        }
        publish { recorder in for record in records { recorder.changed(record.collection, record.id) } }
    }

    /// Adds or replaces every record in one transaction, binding their JSON text as it is: no
    /// parsing, no second serialization, and a snapshot that is the object is not written again.
    public func upsert(encoded records: [EncodedRecord]) async throws {
        try await run("upsert \(records.count) records") { db in
            for record in records { try Self.write(record, db) }
        }
        publish { recorder in for record in records { recorder.changed(record.collection, record.id) } }
    }

    /// Tells this store's observers what a committed write changed.
    private func publish(_ fill: (ChangeRecorder) -> Void) {
        let recorder = ChangeRecorder()
        fill(recorder)
        recorder.publish(for: self)
    }

    /// The record with `id`, or nil.
    public func fetch(collection: String, id: String) async throws -> StoredRecord? {
        try await read("fetch \(collection)/\(id)") { db in try Self.fetchRecord(collection: collection, id: id, db) }
    }

    static func fetchRecord(collection: String, id: String, _ db: Database) throws -> StoredRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(recordColumns) FROM records WHERE collection = ? AND id = ?"),
            arguments: [collection, id]
        ).map(Self.record)
    }

    /// The records matching `criteria`, evaluated in SQL.
    public func fetch(collection: String, matching criteria: Criteria) async throws -> [StoredRecord] {
        try criteria.validate()
        var sql = "SELECT \(Self.recordColumns) FROM records"
        // The planner prefers the primary key (it yields id order) over a selective expression
        // index it has no statistics for; name the declared index of the first indexed filter.
        if let key = criteria.filters.keys.sorted().first(where: {
            indexes[collection]?.contains($0) == true && criteria.filters[$0] != .null
        }) {
            sql += " INDEXED BY \"\(Self.indexName(collection, key))\""
        }
        sql += " WHERE collection = ?"
        var arguments: [(any DatabaseValueConvertible)?] = [collection]
        if !criteria.includeDeleted { sql += " AND sync_state != 'deleted'" }
        for (key, value) in criteria.filters.sorted(by: { $0.key < $1.key }) {
            let expression = Self.valueSQL(key, &arguments)
            switch value {
            case .null: sql += " AND \(expression) IS NULL"
            case .bool(let flag): sql += " AND \(expression) = ?"; arguments.append(flag ? 1 : 0)
            case .integer(let number): sql += " AND \(expression) = ?"; arguments.append(number)
            case .double(let number): sql += " AND \(expression) = ?"; arguments.append(number)
            case .string(let text): sql += " AND \(expression) = ?"; arguments.append(text)
            case .array, .object: throw DepotError(.invalidRequest, "criteria compare scalars")
            }
        }
        let order =
            criteria.sort.map { "\(Self.valueSQL($0.key, &arguments)) \($0.ascending ? "ASC" : "DESC")" } + ["id ASC"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = criteria.limit {
            sql += " LIMIT ?"
            arguments.append(limit)
        }
        let statementArguments = StatementArguments(arguments)
        let query = sql
        // Keys spliced into the SQL may come from data (a query string), and GRDB's statement
        // cache never evicts: cache only queries on declared index keys, a set fixed at opening.
        let declared = indexes[collection] ?? []
        let keys = Set(criteria.filters.keys).union(criteria.sort.map(\.key))
        let cacheable = keys.isSubset(of: declared)
        return try await read("query \(collection)") { db in
            try Self.records(
                cacheable ? db.cachedStatement(sql: query) : db.makeStatement(sql: query), statementArguments)
        }
    }

    /// Removes the record with `id`.
    public func delete(collection: String, id: String) async throws -> Bool {
        let removed = try await run("delete \(collection)/\(id)") { db in
            try Self.deleteRecord(collection: collection, id: id, db)
        }
        if removed { publish { $0.deleted(collection, id) } }
        return removed
    }

    /// Removes every record of `collection`.
    public func deleteAll(collection: String) async throws {
        try await run("delete all of \(collection)") { db in
            try db.cachedStatement(sql: "DELETE FROM records WHERE collection = ?").execute(arguments: [collection])
        }
        publish { $0.cleared(collection) }
    }

    /// Runs `body` in one SQLite write transaction (rolled back if it throws); SQLite's single
    /// writer keeps every other write out until it commits.
    public func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        let (recorder, owners) = (ChangeRecorder(), self.owners)
        let output = try await run("run a transaction") { db in
            do {
                return try body(Transaction(db: db, recorder: recorder, owners: owners))
            } catch {
                throw BodyFailure(error: error)  // rolls back; the body's own error reaches the caller as is
            }
        }
        recorder.publish(for: self)
        return output
    }

    /// Carries an error a transaction body threw past the `.storage` wrapping.
    struct BodyFailure: Error {
        let error: any Error
    }

    /// A `StorageTransaction` on the database connection of one GRDB write.
    struct Transaction: StorageTransaction {
        let db: Database
        /// What the transaction wrote, told to observers once it commits.
        let recorder: ChangeRecorder
        /// The file's lease owner locks (nil in memory).
        var owners: LeaseOwnerLocks? = nil

        func fetch(collection: String, id: String) throws -> StoredRecord? {
            try storageErrors("cannot fetch \(collection)/\(id)") {
                try SQLiteStorage.fetchRecord(collection: collection, id: id, db)
            }
        }

        func upsert(_ record: StoredRecord) throws {
            try storageErrors("cannot write \(record.collection)/\(record.id)") {
                try SQLiteStorage.write(EncodedRecord(record), db)
            }
            recorder.changed(record.collection, record.id)
        }

        func upsert(encoded record: EncodedRecord) throws {
            try storageErrors("cannot write \(record.collection)/\(record.id)") { try SQLiteStorage.write(record, db) }
            recorder.changed(record.collection, record.id)
        }

        func syncStates(collection: String, ids: [String]) throws -> [String: SyncState] {
            try storageErrors("cannot read the sync states of \(ids.count) \(collection) records") {
                try SQLiteStorage.syncStates(collection: collection, ids: ids, db)
            }
        }

        func delete(collection: String, id: String) throws -> Bool {
            let removed = try storageErrors("cannot delete \(collection)/\(id)") {
                try SQLiteStorage.deleteRecord(collection: collection, id: id, db)
            }
            if removed { recorder.deleted(collection, id) }
            return removed
        }
    }
}
