import Foundation

// Whose write it is: entries recorded under an account other than the one signed in are held
// (``OutboxEntry/account``); the app lists them and can give them up.

extension Forwarder {
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
