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

    /// The entries waiting for another account: recorded under an account other than the one
    /// their repository's session declares now (``OutboxEntry/account``, ``Networking/account``).
    /// They are never sent as another account; they go once theirs signs in again, or the app
    /// gives them up with ``discard(account:)``.
    ///
    /// - Returns: (in the promise) the held entries, in order.
    public func held() -> Promise<[OutboxEntry]> {
        let engine = self.engine
        return Promise { try await engine.heldEntries() }
    }

    /// Gives up every entry recorded under `account` (an account that signed out for good, say),
    /// refused ones included, as ``discard(_:)`` gives up one: each entity whose last entry goes
    /// back to the server's last version, or is removed if the server never had it. Writes of
    /// other accounts, and those recorded under none, stay.
    ///
    /// ```swift
    /// auth.update(credential: bobToken, account: "bob")
    /// let waiting = try await forwarder.held().value        // ann's writes, not sent as bob
    /// try await forwarder.discard(account: "ann").value     // ann will not be back
    /// ```
    ///
    /// - Parameter account: the account whose entries go.
    /// - Returns: (in the promise) how many entries were removed.
    @discardableResult
    public func discard(account: String) -> Promise<Int> {
        let (storage, query) = (self.storage, engine.query(.all))
        return Promise {
            let entities = Set(
                try await storage.outbox(query).filter { $0.account == account }.map {
                    OutboxEngine.EntityKey($0)
                })
            return try await storage.transaction { tx -> Int in
                var removed = 0
                for entity in entities {
                    let entries = try tx.outboxEntries(collection: entity.collection, entityID: entity.entityID)
                    var left = entries.count
                    for entry in entries where entry.account == account {
                        guard try tx.removeOutbox(sequence: entry.sequence) else { continue }
                        removed += 1
                        left -= 1
                    }
                    if left == 0, !entries.isEmpty {
                        try tx.writeRecord(.restore(collection: entity.collection, id: entity.entityID))
                    }
                }
                return removed
            }
        }
    }
}
