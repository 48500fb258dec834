import Foundation

extension DeliveryLog {
    /// How many marks a store holds before a removal is tried, and the most one removes.
    static let removal: (minimum: Int64, limit: Int) = (32, 512)

    /// Removes the marks no read in flight in this process needs (``OpenReads``), once the store
    /// holds enough of them: the oldest marks (by sequence) at or before the floor go, and the
    /// sequence row keeps the newest one removed and the marks left. Marks are looked up first,
    /// then each is taken out in one transaction if it still holds what was looked up (a newer
    /// delivery moved it: it stays), the sequence row written last. A store that fails keeps its
    /// marks for the next try.
    ///
    /// - Parameter row: the sequence row the caller just read (in the transaction that stored an
    ///   answer, or as a read began): marks at or before it are the most that can go. A store
    ///   without one has nothing to remove.
    static func removeMarks(in storage: Storage, sequence row: StoredRecord?) async {
        guard let row, let store = storeID(row), marks(row) >= removal.minimum,
            let floor = OpenReads.shared.removalFloor(
                store: store, upTo: number(row), marks: marks(row), minimum: removal.minimum),
            let oldest = try? await storage.fetch(
                collection: collection, matching: Criteria(sort: [.ascending("seq")], limit: removal.limit))
        else { return }
        let due = oldest.filter { !$0.id.hasPrefix("#") && number($0) > 0 && number($0) <= floor }
            .map { (id: $0.id, sequence: number($0)) }
        guard !due.isEmpty else { return }
        _ = try? await storage.transaction { tx in
            var (removed, newest): (Int64, Int64) = (0, 0)
            for mark in due where number(try tx.fetch(collection: collection, id: mark.id)) == mark.sequence {
                _ = try tx.delete(collection: collection, id: mark.id)
                removed += 1
                newest = max(newest, mark.sequence)
            }
            guard removed > 0, var row = try tx.fetch(collection: collection, id: sequenceID), storeID(row) == store
            else { return }
            row.object["floor"] = .integer(max(newest, DeliveryLog.floor(row)))
            row.object["marks"] = .integer(max(0, marks(row) - removed))
            try tx.upsert(row)
        }
    }
}

extension Storage {
    /// ``TransactionalStorage/transaction(_:)`` for a body that stores answers to writes (each
    /// noting a delivery): once it committed, the marks no open read needs go
    /// (``DeliveryLog/removeMarks(in:sequence:)``), so they stay bounded on every write road.
    func storingAnswers<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output {
        // The sequence row read last, in the same transaction: no round trip of its own.
        let (output, sequence) = try await transaction { tx in
            (try body(tx), try tx.fetch(collection: DeliveryLog.collection, id: DeliveryLog.sequenceID))
        }
        if DeliveryLog.marks(sequence) >= DeliveryLog.removal.minimum {
            await DeliveryLog.removeMarks(in: self, sequence: sequence)
        }
        return output
    }
}
