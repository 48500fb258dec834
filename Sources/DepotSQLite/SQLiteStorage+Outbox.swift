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

    /// The lease clock: the latest time the store gave for leases (one row), so the store's time
    /// never runs back (``Transaction/leaseTime()``).
    static func createLeaseClock(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE lease_clock (id INTEGER PRIMARY KEY CHECK (id = 0), latest REAL NOT NULL)")
    }

    /// The outbox entries `query` selects, by sequence, in one query.
    public func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry] {
        let (sql, arguments) = Self.outboxSQL("SELECT *", query)
        return try await read("read the outbox") { db in
            try Self.outboxEntries(db.cachedStatement(sql: sql), arguments)
        }
    }

    /// How many outbox entries `query` selects.
    public func outboxCount(_ query: OutboxQuery) async throws -> Int {
        var unlimited = query
        unlimited.limit = nil
        let (sql, arguments) = Self.outboxSQL("SELECT COUNT(*)", unlimited)
        return try await read("count the outbox") { db in
            try Int.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? 0
        }
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

    /// The entries a statement selecting every outbox column returns, read straight off its cursor.
    static func outboxEntries(_ statement: Statement, _ arguments: StatementArguments) throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { entries.append(try outboxEntry(row)) }
        return entries
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
        let leaseOwner: String? = row["lease_owner"]
        let leaseExpiry: Double? = row["lease_expiry"]
        let account: String? = row["account"]
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
                : nil,
            lease: leaseOwner.map {
                OutboxLease(owner: $0, expiry: Date(timeIntervalSince1970: leaseExpiry ?? 0))
            },
            account: account
        )
    }

    static func outboxArguments(_ entry: OutboxEntry) throws -> [(any DatabaseValueConvertible)?] {
        let payload = try entry.payload.map { String(decoding: try $0.serialized(), as: UTF8.self) }
        return [
            entry.collection, entry.entityID, entry.operation.rawValue, payload, entry.idempotencyKey, entry.attempts,
            entry.failures,
            entry.nextAttempt?.timeIntervalSince1970, entry.lastError, entry.isRejected, entry.rejection?.status,
            entry.rejection?.body, entry.rejection?.message, entry.lease?.owner,
            entry.lease?.expiry.timeIntervalSince1970, entry.account,
        ]
    }

    static let outboxColumns =
        "collection, entity_id, operation, payload, idempotency_key, attempts, failures, next_attempt, last_error, rejected, rejected_status, rejected_body, rejected_message, lease_owner, lease_expiry, account"

    static let appendOutboxSQL =
        "INSERT INTO outbox (\(outboxColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    /// ``appendOutboxSQL`` when the entity (the last two arguments) has no entry.
    static let appendFirstOutboxSQL =
        "INSERT INTO outbox (\(outboxColumns)) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "
        + "WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE collection = ? AND entity_id = ?)"

    static let replaceOutboxSQL =
        "UPDATE outbox SET "
        + outboxColumns.split(separator: ",").map { "\($0.trimmingCharacters(in: .whitespaces)) = ?" }
        .joined(separator: ", ") + " WHERE sequence = ?"
}

extension SQLiteStorage.Transaction {
    func outboxEntries(collection: String, entityID: String) throws -> [OutboxEntry] {
        try SQLiteStorage.storageErrors("cannot read the outbox of \(collection)/\(entityID)") {
            try SQLiteStorage.outboxEntries(
                db.cachedStatement(
                    sql: "SELECT * FROM outbox WHERE collection = ? AND entity_id = ? ORDER BY sequence"),
                [collection, entityID])
        }
    }

    func outboxEntry(sequence: Int64) throws -> OutboxEntry? {
        try SQLiteStorage.storageErrors("cannot read outbox entry \(sequence)") {
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM outbox WHERE sequence = ?"), arguments: [sequence])
                .map(SQLiteStorage.outboxEntry)
        }
    }

    func appendOutbox(_ entry: OutboxEntry) throws -> Int64 {
        recorder.outbox()
        return try SQLiteStorage.storageErrors("cannot add to the outbox") {
            try db.cachedStatement(sql: SQLiteStorage.appendOutboxSQL)
                .execute(arguments: StatementArguments(try SQLiteStorage.outboxArguments(entry)))
            return db.lastInsertedRowID
        }
    }

    /// Adds `entry` in one statement when its entity has no entry; else reads the last one.
    func appendOutboxIfFirst(_ entry: OutboxEntry) throws -> OutboxAppend {
        let appended = try SQLiteStorage.storageErrors("cannot add to the outbox") { () -> Int64? in
            try db.cachedStatement(sql: SQLiteStorage.appendFirstOutboxSQL)
                .execute(
                    arguments: StatementArguments(
                        try SQLiteStorage.outboxArguments(entry) + [entry.collection, entry.entityID]))
            return db.changesCount > 0 ? db.lastInsertedRowID : nil
        }
        if let appended {
            recorder.outbox()
            return .appended(sequence: appended)
        }
        let last = try SQLiteStorage.storageErrors("cannot read the outbox of \(entry.collection)/\(entry.entityID)") {
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT * FROM outbox WHERE collection = ? AND entity_id = ? ORDER BY sequence DESC LIMIT 1"),
                arguments: [entry.collection, entry.entityID]
            ).map(SQLiteStorage.outboxEntry)
        }
        guard let last else { throw DepotError(.storage, "cannot add to the outbox of \(entry.entityID)") }
        return .behind(last)
    }

    func replaceOutbox(_ entry: OutboxEntry) throws -> Bool {
        recorder.outbox()
        return try SQLiteStorage.storageErrors("cannot change outbox entry \(entry.sequence)") {
            try db.cachedStatement(sql: SQLiteStorage.replaceOutboxSQL)
                .execute(arguments: StatementArguments(try SQLiteStorage.outboxArguments(entry) + [entry.sequence]))
            return db.changesCount > 0
        }
    }

    func removeOutbox(sequence: Int64) throws -> Bool {
        recorder.outbox()
        return try SQLiteStorage.storageErrors("cannot remove outbox entry \(sequence)") {
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE sequence = ?").execute(arguments: [sequence])
            return db.changesCount > 0
        }
    }

    func markOutboxAttempted(sequences: [Int64]) throws -> [OutboxEntry] {
        guard !sequences.isEmpty else { return [] }
        return try SQLiteStorage.storageErrors("cannot count an attempt on \(sequences.count) outbox entries") {
            // One statement for any number of entries: the sequences go in as one JSON array.
            let list = String(decoding: try JSON.array(sequences.map { .integer($0) }).serialized(), as: UTF8.self)
            let marked = try SQLiteStorage.outboxEntries(
                db.cachedStatement(
                    sql: """
                        UPDATE outbox SET attempts = attempts + 1
                        WHERE rejected = 0 AND sequence IN (SELECT value FROM json_each(?))
                        RETURNING *
                        """),
                [list])
            let bySequence = Dictionary(marked.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
            var seen = Set<Int64>()
            return sequences.compactMap { seen.insert($0).inserted ? bySequence[$0] : nil }
        }
    }

    /// The store's time for leases: the writer's clock (every process on one file runs on one
    /// host's clock), made monotonic by the latest time this file gave, in one statement.
    func leaseTime() throws -> Date {
        try SQLiteStorage.storageErrors("cannot read the store's lease clock") {
            let latest = try Double.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO lease_clock (id, latest) VALUES (0, ?)
                        ON CONFLICT (id) DO UPDATE SET latest = max(latest, excluded.latest)
                        RETURNING latest
                        """),
                arguments: [Date().timeIntervalSince1970])
            return Date(timeIntervalSince1970: latest ?? Date().timeIntervalSince1970)
        }
    }

    /// Claims the entries of `sequences` whose lease is free at `now` (the store's time), in one
    /// `UPDATE … RETURNING`: lapsed, and not held by a claim of this process still open
    /// (``OutboxLease/isFree(at:)``).
    func claimOutbox(sequences: [Int64], lease: OutboxLease, now: Date) throws -> [OutboxEntry] {
        guard !sequences.isEmpty else { return [] }
        return try SQLiteStorage.storageErrors("cannot claim \(sequences.count) outbox entries") {
            let list = String(decoding: try JSON.array(sequences.map { .integer($0) }).serialized(), as: UTF8.self)
            let open = String(
                decoding: try JSON.array(OutboxClaim.openOwners.map { .string($0) }).serialized(), as: UTF8.self)
            let claimed = try SQLiteStorage.outboxEntries(
                db.cachedStatement(
                    sql: """
                        UPDATE outbox SET attempts = attempts + 1, lease_owner = ?, lease_expiry = ?
                        WHERE rejected = 0 AND sequence IN (SELECT value FROM json_each(?))
                        AND (lease_owner IS NULL OR lease_expiry IS NULL
                            OR (lease_expiry <= ? AND lease_owner NOT IN (SELECT value FROM json_each(?))))
                        RETURNING *
                        """),
                [lease.owner, lease.expiry.timeIntervalSince1970, list, now.timeIntervalSince1970, open])
            let bySequence = Dictionary(claimed.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
            var seen = Set<Int64>()
            return sequences.compactMap { seen.insert($0).inserted ? bySequence[$0] : nil }
        }
    }

    /// Frees the leases of owners whose process has ended (``LeaseOwnerLocks``): one read of the
    /// leased entries' owners, one lock probe per process, one `UPDATE` per ended claim.
    func releaseLeasesOfEndedOwners() throws -> Int {
        guard let owners else { return 0 }
        return try SQLiteStorage.storageErrors("cannot free the leases of ended senders") {
            let leased = try String.fetchAll(
                db.cachedStatement(sql: "SELECT DISTINCT lease_owner FROM outbox WHERE lease_owner IS NOT NULL"))
            var verdicts: [String: Bool] = [:]
            var freed = 0
            for owner in leased {
                guard let token = LeaseOwner.processToken(of: owner) else { continue }
                let ended = verdicts[token] ?? owners.hasEnded(owner: owner)
                verdicts[token] = ended
                guard ended else { continue }
                try db.cachedStatement(
                    sql: "UPDATE outbox SET lease_owner = NULL, lease_expiry = NULL WHERE lease_owner = ?"
                ).execute(arguments: [owner])
                freed += db.changesCount
            }
            return freed
        }
    }

    /// Moves `owner`'s leases on `sequences` to `expiry` in one `UPDATE … RETURNING`.
    func renewOutboxLeases(sequences: [Int64], owner: String, expiry: Date) throws -> Set<Int64> {
        guard !sequences.isEmpty else { return [] }
        return try SQLiteStorage.storageErrors("cannot renew \(sequences.count) outbox leases") {
            let list = String(decoding: try JSON.array(sequences.map { .integer($0) }).serialized(), as: UTF8.self)
            return Set(
                try Int64.fetchAll(
                    db.cachedStatement(
                        sql: """
                            UPDATE outbox SET lease_expiry = ?
                            WHERE lease_owner = ? AND sequence IN (SELECT value FROM json_each(?))
                            RETURNING sequence
                            """),
                    arguments: [expiry.timeIntervalSince1970, owner, list]))
        }
    }

    /// The sequences of `sequences` leased by `owner`, in one query.
    func heldOutboxLeases(sequences: [Int64], owner: String) throws -> Set<Int64> {
        guard !sequences.isEmpty else { return [] }
        return try SQLiteStorage.storageErrors("cannot read \(sequences.count) outbox leases") {
            let list = String(decoding: try JSON.array(sequences.map { .integer($0) }).serialized(), as: UTF8.self)
            return Set(
                try Int64.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT sequence FROM outbox
                            WHERE lease_owner = ? AND sequence IN (SELECT value FROM json_each(?))
                            """),
                    arguments: [owner, list]))
        }
    }

    func releaseOutbox(sequences: [Int64], owner: String) throws -> Int {
        guard !sequences.isEmpty else { return 0 }
        return try SQLiteStorage.storageErrors("cannot release \(sequences.count) outbox entries") {
            let list = String(decoding: try JSON.array(sequences.map { .integer($0) }).serialized(), as: UTF8.self)
            try db.cachedStatement(
                sql: """
                    UPDATE outbox SET lease_owner = NULL, lease_expiry = NULL
                    WHERE lease_owner = ? AND sequence IN (SELECT value FROM json_each(?))
                    """
            ).execute(arguments: [owner, list])
            return db.changesCount
        }
    }
}
