#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    // How a record and an outbox entry sit in their rows: JSON as `jsonb` (read back as text), a
    // snapshot equal to the object kept as a flag rather than a second copy, dates as seconds
    // since 1970 (as the SQLite store keeps them). A row that does not decode is a `.storage` error.

    extension PostgresStorage {
        /// The columns records are read with, in the order ``record(_:)`` reads them.
        static let recordColumns =
            "collection, id, COALESCE(object::text, object_text), sync_state, COALESCE(snapshot::text, snapshot_text), etag, snapshot_is_object"

        /// The columns outbox entries are read with, in the order ``outboxEntry(_:)`` reads them.
        static let outboxColumns = """
            sequence, collection, entity_id, operation, payload, idempotency_key, attempts, failures, \
            next_attempt, last_error, rejected, rejected_status, rejected_body, rejected_message, lease_owner, \
            lease_expiry, account
            """

        /// The columns a record is written with, in the order ``appendRecordRow(_:to:)`` binds them.
        static let recordWriteColumns =
            "collection, id, object, object_text, sync_state, snapshot, snapshot_text, etag, snapshot_is_object"

        /// What an upsert does to a record that is already there: every column replaced.
        static let recordConflictUpdate = """
             ON CONFLICT (collection, id) DO UPDATE SET
                object = excluded.object, object_text = excluded.object_text, sync_state = excluded.sync_state,
                snapshot = excluded.snapshot, snapshot_text = excluded.snapshot_text,
                etag = excluded.etag, snapshot_is_object = excluded.snapshot_is_object
            """

        /// The statement that adds or replaces `record`, sending `notice` (delivered if its
        /// transaction commits) when given.
        func upsertQuery(_ record: EncodedRecord, notice: String? = nil) -> PostgresQuery {
            var query = PostgresQuery(
                unsafeSQL: "INSERT INTO \(quoted).records (\(Self.recordWriteColumns)) VALUES ")
            Self.appendRecordRow(record, to: &query)
            endUpsert(&query, notice: notice)
            return query
        }

        /// Ends an upsert of one record: replace on conflict, and `RETURNING pg_notify(…)` sending
        /// `notice` (delivered if its transaction commits) when given.
        func endUpsert(_ query: inout PostgresQuery, notice: String?) {
            query.sql += Self.recordConflictUpdate
            guard let notice else { return }
            query.binds.append(channel)
            query.binds.append(notice)
            query.sql += " RETURNING pg_notify($\(query.binds.count - 1), $\(query.binds.count))"
        }

        /// Appends `record`'s row, `($1, $2, $3::jsonb, …)` in the order of ``recordWriteColumns``
        /// (without the parentheses unless `parenthesized`), to `query`'s SQL, and its values to
        /// the query's binds.
        static func appendRecordRow(_ record: EncodedRecord, to query: inout PostgresQuery, parenthesized: Bool = true)
        {
            let snapshot: String?
            let snapshotIsObject: Bool
            switch record.snapshot {
            case .absent: (snapshot, snapshotIsObject) = (nil, false)
            case .sameAsObject: (snapshot, snapshotIsObject) = (nil, true)
            case .encoded(let text): (snapshot, snapshotIsObject) = (text, false)
            }
            // jsonb holds no U+0000: such JSON (rare) is kept as text beside it.
            let objectHoldsNUL = holdsNUL(record.object)
            let snapshotHoldsNUL = snapshot.map(holdsNUL) ?? false
            let first = query.binds.count + 1
            query.binds.append(record.collection)
            query.binds.append(record.id)
            query.binds.append(objectHoldsNUL ? nil : record.object)
            query.binds.append(objectHoldsNUL ? record.object : nil)
            query.binds.append(record.syncState.rawValue)
            query.binds.append(snapshotHoldsNUL ? nil : snapshot)
            query.binds.append(snapshotHoldsNUL ? snapshot : nil)
            query.binds.append(record.etag)
            query.binds.append(snapshotIsObject)
            let casts = ["", "", "::jsonb", "", "", "::jsonb", "", "", ""]
            let values = casts.enumerated().map { "$\(first + $0.offset)\($0.element)" }.joined(separator: ", ")
            query.sql += parenthesized ? "(" + values + ")" : values
        }

        /// True when JSON `text` may hold U+0000 (an escape `\u0000`), which `jsonb` refuses.
        static func holdsNUL(_ text: String) -> Bool { text.contains("\\u0000") || text.utf8.contains(0) }

        /// A record from a row of ``recordColumns``.
        static func record(_ row: PostgresRow) throws -> StoredRecord {
            let columns: (String, String, String, String, String?, String?, Bool)
            do {
                columns = try row.decode((String, String, String, String, String?, String?, Bool).self)
            } catch {
                throw DepotError(.storage, "a record row does not decode: \(error)", underlying: error)
            }
            let (collection, id, text, state, snapshotText, etag, snapshotIsObject) = columns
            guard let syncState = SyncState(rawValue: state) else {
                throw DepotError(.storage, "\(collection)/\(id) has an unknown sync state \(state.debugDescription)")
            }
            let object = try object(text, what: "\(collection)/\(id)")
            let snapshot: JSONObject?
            if snapshotIsObject {
                snapshot = object
            } else if let snapshotText {
                snapshot = try self.object(snapshotText, what: "the snapshot of \(collection)/\(id)")
            } else {
                snapshot = nil
            }
            return StoredRecord(
                collection: collection, id: id, object: object, syncState: syncState, snapshot: snapshot, etag: etag)
        }

        static func object(_ text: String, what: String) throws -> JSONObject {
            let parsed: JSON
            do {
                parsed = try JSON(parsing: Data(text.utf8))
            } catch {
                throw DepotError(.storage, "\(what) is not readable JSON: \(error)", underlying: error)
            }
            guard let object = parsed.objectValue else { throw DepotError(.storage, "\(what) is not a JSON object") }
            return object
        }

        /// An outbox entry from a row of ``outboxColumns``.
        static func outboxEntry(_ row: PostgresRow) throws -> OutboxEntry {
            let columns:
                (
                    Int64, String, String, String, String?, String, Int, Int, Double?, String?, Bool, Int?, Data?,
                    String?, String?, Double?, String?
                )
            do {
                columns = try row.decode(
                    (
                        Int64, String, String, String, String?, String, Int, Int, Double?, String?, Bool, Int?, Data?,
                        String?, String?, Double?, String?
                    ).self)
            } catch {
                throw DepotError(.storage, "an outbox row does not decode: \(error)", underlying: error)
            }
            let (
                sequence, collection, entityID, operationText, payloadText, key, attempts, failures, nextAttempt,
                lastError, rejected, rejectedStatus, rejectedBody, rejectedMessage, leaseOwner, leaseExpiry, account
            ) = columns
            guard let operation = OutboxOperation(rawValue: operationText) else {
                throw DepotError(
                    .storage, "outbox entry \(sequence) has an unknown operation \(operationText.debugDescription)")
            }
            let payload: JSON?
            do {
                payload = try payloadText.map { try JSON(parsing: Data($0.utf8)) }
            } catch {
                throw DepotError(
                    .storage, "outbox entry \(sequence) has an unreadable payload: \(error)", underlying: error)
            }
            return OutboxEntry(
                sequence: sequence, collection: collection, entityID: entityID, operation: operation,
                payload: payload, idempotencyKey: key, attempts: attempts, failures: failures,
                nextAttempt: nextAttempt.map(Date.init(timeIntervalSince1970:)), lastError: lastError,
                rejection: rejected
                    ? OutboxRejection(
                        status: rejectedStatus, body: rejectedBody ?? Data(), message: rejectedMessage ?? "")
                    : nil,
                lease: leaseOwner.map { OutboxLease(owner: $0, expiry: Date(timeIntervalSince1970: leaseExpiry ?? 0)) },
                account: account
            )
        }

        /// The values of `entry`'s columns (all but the sequence), as SQL `VALUES` or `SET` takes them.
        static func outboxValues(_ entry: OutboxEntry) throws -> OutboxValues {
            OutboxValues(
                payload: try entry.payload.map { String(decoding: try $0.serialized(), as: UTF8.self) },
                nextAttempt: entry.nextAttempt?.timeIntervalSince1970,
                leaseExpiry: entry.lease?.expiry.timeIntervalSince1970)
        }

        /// The encoded values of an entry that need converting.
        struct OutboxValues {
            var payload: String?
            var nextAttempt: Double?
            var leaseExpiry: Double?
        }
    }
#endif
