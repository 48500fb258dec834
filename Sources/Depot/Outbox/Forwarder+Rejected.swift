import Foundation

extension Forwarder {
    /// Puts a refused entry back in line, as it is (after the app fixed what the server objected
    /// to on the server, say): it goes at the next pass, under its own idempotency key.
    ///
    /// - Returns: (in the promise) whether the entry was still there.
    @discardableResult
    public func retry(_ entry: OutboxEntry) -> Promise<Bool> {
        let (sequence, storage) = (entry.sequence, storage)
        return Promise {
            let retried = try await storage.transaction { tx -> Bool in
                guard var stored = try tx.outboxEntry(sequence: sequence) else { return false }
                stored.rejection = nil
                stored.nextAttempt = nil
                try tx.replaceOutbox(stored)
                return true
            }
            if retried { OutboxCoordinator.notify(storage) }
            return retried
        }
    }

    /// Gives up a refused (or pending) entry: it is removed, and when it was the entity's last
    /// entry the record goes back to the server's last version (``StoredRecord/snapshot``), or is
    /// removed if the server never had it. Putting the record back is a write of its collection:
    /// the collection's cached lists are not answered again without asking the server.
    ///
    /// - Returns: (in the promise) whether the entry was still there.
    @discardableResult
    public func discard(_ entry: OutboxEntry) -> Promise<Bool> {
        let (sequence, collection, entityID) = (entry.sequence, entry.collection, entry.entityID)
        let storage = self.storage
        return Promise {
            try await storage.transaction { tx -> Bool in
                guard try tx.removeOutbox(sequence: sequence) else { return false }
                if try tx.outboxEntries(collection: collection, entityID: entityID).isEmpty {
                    try tx.writeRecord(.restore(collection: collection, id: entityID))
                }
                return true
            }
        }
    }
}
