import Foundation

// The pending writes of one entity are a chain that ends at its next delete. A write the server
// refused with a 404 says the entity is gone there: the writes behind it in its chain can never
// follow it, and the app's delete of the entity, whenever it is recorded, agrees with the server
// and ends that chain. A create after the delete makes the entity anew: a new chain, sent.

extension StorageTransaction {
    /// Whether the server has no such entity, by what it answered: it refused a pending write of
    /// the entity with a 404 (it is gone there), or the entity's chain starts with a create it
    /// refused with a 4xx (a bad draft: it made nothing) and nothing behind that create was sent.
    func refusedAsGone(collection: String, entityID: String) throws -> Bool {
        let entries = try outboxEntries(collection: collection, entityID: entityID)
        if entries.contains(where: { $0.rejection?.status == 404 }) { return true }
        guard let first = entries.first, first.operation == .create, let status = first.rejection?.status,
            (400..<500).contains(status)
        else { return false }
        return entries.dropFirst().allSatisfy { $0.attempts == 0 }
    }

    /// Ends the entity's chain refused as gone (a write of it refused with a 404) at the app's
    /// delete of it: the queued delete `delete`, or, with nil, a delete the app makes now. The
    /// server has no such entity and the app deletes it: they agree, so nothing is sent. The
    /// entity's entries up to the delete (all of them, with nil) are removed, the delete's own
    /// included, and the record goes as a delete's answer takes it, unless a write behind the
    /// delete (a create that makes the entity anew, the start of a new chain) waits.
    func endRefusedChain(collection: String, entityID: String, through delete: Int64? = nil) throws {
        for entry in try outboxEntries(collection: collection, entityID: entityID)
        where delete.map({ entry.sequence <= $0 }) ?? true {
            try removeOutbox(sequence: entry.sequence)
        }
        try writeRecord(.writeAnswer(WriteAnswer(answer: nil, collection: collection, sentID: entityID, sent: nil)))
    }
}
