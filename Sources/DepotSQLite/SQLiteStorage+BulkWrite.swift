import Depot
import Foundation
import GRDB

// Many records per statement: a pull page's new records written with one multi-row upsert per
// `bulkRows` rows, rather than one statement per row (each row's statement cost as much as its
// insert: argument checks, the statement's reset and halt).

extension SQLiteStorage {
    /// Rows per multi-row statement: 7 arguments each, well under the 999 bound parameters older
    /// SQLite builds allow.
    static let bulkRows = 64

    /// The upsert of ``upsertSQL`` for `rows` rows.
    static func bulkUpsertSQL(rows: Int) -> String {
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        return """
            INSERT INTO records (collection, id, object, sync_state, snapshot, etag, snapshot_is_object)
            VALUES \(values)
            ON CONFLICT(collection, id) DO UPDATE SET
                object = excluded.object, sync_state = excluded.sync_state, snapshot = excluded.snapshot,
                etag = excluded.etag, snapshot_is_object = excluded.snapshot_is_object
            """
    }

    /// The statements of the bulk write, by rows (powers of two up to `bulkRows`): written once.
    static let bulkUpsertSQLs: [Int: String] = Dictionary(
        uniqueKeysWithValues: sequence(first: 2) { $0 < bulkRows ? $0 * 2 : nil }.map { ($0, bulkUpsertSQL(rows: $0)) })

    /// Writes `records` in order (a later row with the id of an earlier one replaces it, as
    /// row-by-row writes would), `bulkRows` per statement and the rest in chunks of powers of two,
    /// so a handful of statements are cached whatever the pages' sizes; a snapshot that is the
    /// object is stored as a flag, as ``write(_:_:)`` does.
    static func write(_ records: [EncodedRecord], _ db: Database) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let remaining = records.endIndex - start
            let rows = remaining >= bulkRows ? bulkRows : 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount)
            let chunk = records[start..<(start + rows)]
            start += rows
            guard rows > 1 else {
                try write(chunk[chunk.startIndex], db)
                continue
            }
            // Existentials, not `[DatabaseValue]`: GRDB maps a sequence of a concrete type
            // through a key path, a tenth of the page's write time.
            var values: [(any DatabaseValueConvertible)?] = []
            values.reserveCapacity(rows * 7)
            for record in chunk {
                let snapshot: String?
                let snapshotIsObject: Bool
                switch record.snapshot {
                case .absent: (snapshot, snapshotIsObject) = (nil, false)
                case .sameAsObject: (snapshot, snapshotIsObject) = (nil, true)
                case .encoded(let text): (snapshot, snapshotIsObject) = (text, false)
                }
                values.append(record.collection)
                values.append(record.id)
                values.append(record.object)
                values.append(record.syncState.rawValue)
                values.append(snapshot)
                values.append(record.etag)
                values.append(snapshotIsObject)
            }
            try db.cachedStatement(sql: bulkUpsertSQLs[rows] ?? bulkUpsertSQL(rows: rows))
                .execute(arguments: StatementArguments(values))
        }
    }
}

extension SQLiteStorage.Transaction {
    func upsert(encodedRecords records: [EncodedRecord]) throws {
        try SQLiteStorage.storageErrors("cannot write \(records.count) records") {
            try SQLiteStorage.write(records, db)
        }
        for record in records { recorder.changed(record.collection, record.id) }
    }
}
