import Depot
import Foundation
import GRDB

extension SQLiteStorage {
    /// The outbox table: one row per entry, keyed by a sequence that never repeats (AUTOINCREMENT),
    /// indexed by entity for coalescing.
    static func createOutbox(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE outbox (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    collection TEXT NOT NULL,
                    entity_id TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    payload TEXT,
                    idempotency_key TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    failures INTEGER NOT NULL DEFAULT 0,
                    next_attempt REAL,
                    last_error TEXT,
                    rejected INTEGER NOT NULL DEFAULT 0,
                    rejected_status INTEGER,
                    rejected_body BLOB,
                    rejected_message TEXT
                );
                CREATE INDEX outbox_entity ON outbox(collection, entity_id, sequence);
                """
        )
    }

    /// The outbox entries `query` selects, by sequence, in one query.
    public func outbox(_ query: OutboxQuery) -> Promise<[OutboxEntry]> {
        let (sql, arguments) = Self.outboxSQL("SELECT *", query)
        return read("read the outbox") { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.outboxEntry)
        }
    }

    /// How many outbox entries `query` selects.
    public func outboxCount(_ query: OutboxQuery) -> Promise<Int> {
        var unlimited = query
        unlimited.limit = nil
        let (sql, arguments) = Self.outboxSQL("SELECT COUNT(*)", unlimited)
        return read("count the outbox") { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }

    static func outboxSQL(_ select: String, _ query: OutboxQuery) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        switch query.selection {
        case .pending: conditions.append("rejected = 0")
        case .rejected: conditions.append("rejected = 1")
        case .all: break
        }
        if let collections = query.collections {
            conditions.append(
                "collection IN (\(Array(repeating: "?", count: collections.count).joined(separator: ", ")))")
            arguments += collections.sorted()
        }
        if let entityID = query.entityID {
            conditions.append("entity_id = ?")
            arguments.append(entityID)
        }
        if let after = query.after {
            conditions.append("sequence > ?")
            arguments.append(after)
        }
        var sql = "\(select) FROM outbox"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !select.contains("COUNT") { sql += " ORDER BY sequence ASC" }
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments.append(max(limit, 0))
        }
        return (sql, StatementArguments(arguments))
    }

    static func outboxEntry(_ row: Row) throws -> OutboxEntry {
        let sequence: Int64 = row["sequence"]
        let operationText: String = row["operation"]
        guard let operation = OutboxOperation(rawValue: operationText) else {
            throw DepotError(
                .storage, "outbox entry \(sequence) has an unknown operation \(operationText.debugDescription)")
        }
        let payloadText: String? = row["payload"]
        let payload: JSON?
        do {
            payload = try payloadText.map { try JSON(parsing: Data($0.utf8)) }
        } catch {
            throw DepotError(
                .storage, "outbox entry \(sequence) has an unreadable payload: \(error)", underlying: error)
        }
        let nextAttempt: Double? = row["next_attempt"]
        let rejected: Bool = row["rejected"]
        let rejectedBody: Data? = row["rejected_body"]
        return OutboxEntry(
            sequence: sequence,
            collection: row["collection"],
            entityID: row["entity_id"],
            operation: operation,
            payload: payload,
            idempotencyKey: row["idempotency_key"],
            attempts: row["attempts"],
            failures: row["failures"],
            nextAttempt: nextAttempt.map(Date.init(timeIntervalSince1970:)),
            lastError: row["last_error"],
            rejection: rejected
                ? OutboxRejection(
                    status: row["rejected_status"], body: rejectedBody ?? Data(), message: row["rejected_message"] ?? ""
                )
                : nil
        )
    }

    static func outboxArguments(_ entry: OutboxEntry) throws -> [(any DatabaseValueConvertible)?] {
        let payload = try entry.payload.map { String(decoding: try $0.serialized(), as: UTF8.self) }
        return [
            entry.collection, entry.entityID, entry.operation.rawValue, payload, entry.idempotencyKey, entry.attempts,
            entry.failures,
            entry.nextAttempt?.timeIntervalSince1970, entry.lastError, entry.isRejected, entry.rejection?.status,
            entry.rejection?.body, entry.rejection?.message,
        ]
    }

    static let outboxColumns =
        "collection, entity_id, operation, payload, idempotency_key, attempts, failures, next_attempt, last_error, rejected, rejected_status, rejected_body, rejected_message"
}

extension SQLiteStorage.Transaction {
    func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
        try SQLiteStorage.storageErrors("cannot read the outbox of \(collection)/\(entityID)") {
            try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE collection = ? AND entity_id = ? ORDER BY sequence",
                arguments: [collection, entityID]
            ).map(SQLiteStorage.outboxEntry)
        }
    }

    func outboxEntry(sequence: Int64) throws -> OutboxEntry? {
        try SQLiteStorage.storageErrors("cannot read outbox entry \(sequence)") {
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE sequence = ?", arguments: [sequence])
                .map(SQLiteStorage.outboxEntry)
        }
    }

    func appendOutbox(_ entry: OutboxEntry) throws -> Int64 {
        try SQLiteStorage.storageErrors("cannot add to the outbox") {
            try db.execute(
                sql:
                    "INSERT INTO outbox (\(SQLiteStorage.outboxColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: StatementArguments(try SQLiteStorage.outboxArguments(entry)))
            return db.lastInsertedRowID
        }
    }

    func replaceOutbox(_ entry: OutboxEntry) throws -> Bool {
        try SQLiteStorage.storageErrors("cannot change outbox entry \(entry.sequence)") {
            let assignments = SQLiteStorage.outboxColumns.split(separator: ",").map {
                "\($0.trimmingCharacters(in: .whitespaces)) = ?"
            }
            try db.execute(
                sql: "UPDATE outbox SET \(assignments.joined(separator: ", ")) WHERE sequence = ?",
                arguments: StatementArguments(try SQLiteStorage.outboxArguments(entry) + [entry.sequence]))
            return db.changesCount > 0
        }
    }

    func removeOutbox(sequence: Int64) throws -> Bool {
        try SQLiteStorage.storageErrors("cannot remove outbox entry \(sequence)") {
            try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [sequence])
            return db.changesCount > 0
        }
    }
}
