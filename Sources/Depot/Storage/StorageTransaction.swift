import Foundation

/// What a ``TransactionalStorage/transaction(_:)`` body works on: reads and writes that commit together, or not
/// at all if the body throws. No other write to the store interleaves with them, so a body can read
/// a record, decide, and write without a race.
///
/// ```swift
/// try await storage.transaction { tx in
///     guard var record = try tx.fetch(collection: "messages", id: "1") else { return }
///     record.syncState = .updated
///     try tx.upsert(record)
/// }
/// ```
public protocol StorageTransaction: RecordTransaction, OutboxTransaction {}
