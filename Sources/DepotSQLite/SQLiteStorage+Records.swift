import Depot
import Foundation
import GRDB

// How a record sits in a row of the `records` table: written and read with cached statements,
// its JSON as text, a snapshot equal to the object kept as a flag rather than a second copy.

extension SQLiteStorage {
    /// The columns records are read with, in the order ``record(_:)`` reads them.
    static let recordColumns = "collection, id, object, sync_state, snapshot, etag, snapshot_is_object"

    static let upsertSQL = """
        INSERT INTO records (collection, id, object, sync_state, snapshot, etag, snapshot_is_object)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(collection, id) DO UPDATE SET
            object = excluded.object, sync_state = excluded.sync_state, snapshot = excluded.snapshot,
            etag = excluded.etag, snapshot_is_object = excluded.snapshot_is_object
        """

    /// Writes `record` with one cached statement; a snapshot that is the object is stored as a
    /// flag, not as a second copy of the text.
    static func write(_ record: EncodedRecord, _ db: Database) throws {
        let snapshot: String?
        let snapshotIsObject: Bool
        switch record.snapshot {
        case .absent: (snapshot, snapshotIsObject) = (nil, false)
        case .sameAsObject: (snapshot, snapshotIsObject) = (nil, true)
        case .encoded(let text): (snapshot, snapshotIsObject) = (text, false)
        }
        try db.cachedStatement(sql: upsertSQL).execute(
            arguments: [
                record.collection, record.id, record.object, record.syncState.rawValue, snapshot, record.etag,
                snapshotIsObject,
            ])
    }

    /// The sync states of the records of `ids` that exist, read with one `IN (…)` query per 500
    /// ids (well under SQLite's limit on bound parameters); a state that is not one Depot writes is
    /// a `.storage` error.
    static func syncStates(collection: String, ids: [String], _ db: Database) throws -> [String: SyncState] {
        var states: [String: SyncState] = [:]
        states.reserveCapacity(ids.count)
        var start = ids.startIndex
        while start < ids.endIndex {
            let chunk = ids[start..<min(start + 500, ids.endIndex)]
            start = chunk.endIndex
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let statement = try db.cachedStatement(
                sql: "SELECT id, sync_state FROM records WHERE collection = ? AND id IN (\(marks))")
            // Existentials: GRDB maps a sequence of `String` through a key path, value by value.
            var values: [(any DatabaseValueConvertible)?] = [collection]
            values.reserveCapacity(chunk.count + 1)
            for id in chunk { values.append(id) }
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(values))
            while let row = try rows.next() {
                let id: String = try row.decode(atIndex: 0)
                let text: String = try row.decode(atIndex: 1)
                guard let state = SyncState(rawValue: text) else {
                    throw DepotError(.storage, "\(collection)/\(id) has an unknown sync state \(text.debugDescription)")
                }
                states[id] = state
            }
        }
        return states
    }

    static func deleteRecord(collection: String, id: String, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM records WHERE collection = ? AND id = ?")
            .execute(arguments: [collection, id])
        return db.changesCount > 0
    }

    /// The records a statement selecting ``recordColumns`` returns, read straight off its cursor
    /// (each row is read while the cursor is on it, so none is copied).
    static func records(_ statement: Statement, _ arguments: StatementArguments) throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { records.append(try record(row)) }
        return records
    }

    /// A record from a row of ``recordColumns``; a row that does not hold one (a value of the
    /// wrong type, an unknown sync state, text that is not a JSON object) is a `.storage` error.
    static func record(_ row: Row) throws -> StoredRecord {
        let collection: String = try row.decode(atIndex: 0)
        let id: String = try row.decode(atIndex: 1)
        let text: String = try row.decode(atIndex: 2)
        let state: String = try row.decode(atIndex: 3)
        guard let syncState = SyncState(rawValue: state) else {
            throw DepotError(.storage, "\(collection)/\(id) has an unknown sync state \(state.debugDescription)")
        }
        let parsed = try object(text, what: "\(collection)/\(id)")
        let snapshotText: String? = try row.decode(atIndex: 4)
        let snapshotIsObject: Bool = try row.decode(atIndex: 6)
        let snapshot: JSONObject?
        if snapshotIsObject {
            snapshot = parsed
        } else if let snapshotText {
            // Rows written before the flag hold the object's text twice: parse it once.
            snapshot =
                snapshotText == text ? parsed : try object(snapshotText, what: "the snapshot of \(collection)/\(id)")
        } else {
            snapshot = nil
        }
        return StoredRecord(
            collection: collection, id: id, object: parsed, syncState: syncState, snapshot: snapshot,
            etag: try row.decode(atIndex: 5)
        )
    }

    static func object(_ text: String, what: String) throws -> JSONObject {
        guard let object = try JSON(parsing: Data(text.utf8)).objectValue else {
            throw DepotError(.storage, "\(what) is not a JSON object")
        }
        return object
    }
}

extension SQLiteStorage {
    /// Up to `limit` records in `states`, by id, after `id`: one indexed query (`collection,
    /// sync_state`), so walking a large collection's unsynced records never loads the rest.
    public func fetch(collection: String, syncStates states: Set<SyncState>, after id: String?, limit: Int)
        async throws -> [StoredRecord]
    {
        guard !states.isEmpty, limit > 0 else { return [] }
        let marks = Array(repeating: "?", count: states.count).joined(separator: ", ")
        // INDEXED BY: without statistics SQLite walks the primary key to skip the sort, reading
        // every record of the collection (38 ms for 100,000) to find the few unsynced ones.
        var sql =
            "SELECT \(Self.recordColumns) FROM records INDEXED BY records_sync_state "
            + "WHERE collection = ? AND sync_state IN (\(marks))"
        var arguments: [(any DatabaseValueConvertible)?] = [collection]
        arguments += states.map(\.rawValue).sorted()
        if let id {
            sql += " AND id > ?"
            arguments.append(id)
        }
        sql += " ORDER BY id ASC LIMIT ?"
        arguments.append(limit)
        let (query, statementArguments) = (sql, StatementArguments(arguments))
        return try await read("query \(collection) by sync state") { db in
            try Self.records(db.cachedStatement(sql: query), statementArguments)
        }
    }
}

extension SQLiteStorage {
    /// One record's row as SQLite holds it: what tests of the row format look at.
    struct StoredRow: Sendable {
        var object: String
        var snapshot: String?
        var snapshotIsObject: Bool
    }

    /// The raw row of the record with `id`, or nil.
    func storedRow(collection: String, id: String) async throws -> StoredRow? {
        try await read("read the row of \(collection)/\(id)") { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT object, snapshot, snapshot_is_object FROM records WHERE collection = ? AND id = ?"),
                arguments: [collection, id]
            ).map { row in
                StoredRow(
                    object: try row.decode(atIndex: 0), snapshot: try row.decode(atIndex: 1),
                    snapshotIsObject: try row.decode(atIndex: 2))
            }
        }
    }
}

extension SQLiteStorage.Transaction: ListingStorageTransaction {
    func records(collection: String) throws -> [StoredRecord] {
        try SQLiteStorage.storageErrors("cannot list \(collection)") {
            try SQLiteStorage.records(
                db.cachedStatement(
                    sql: "SELECT \(SQLiteStorage.recordColumns) FROM records WHERE collection = ? ORDER BY id ASC"),
                [collection])
        }
    }

    func outbox(_ query: OutboxQuery) throws -> [OutboxEntry] {
        let (sql, arguments) = SQLiteStorage.outboxSQL("SELECT *", query)
        return try SQLiteStorage.storageErrors("cannot read the outbox") {
            try SQLiteStorage.outboxEntries(db.makeStatement(sql: sql), arguments)
        }
    }
}
