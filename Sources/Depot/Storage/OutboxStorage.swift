import Foundation

/// The outbox of a store, read: what the forwarder's passes and pending counts need. Entries are
/// written only inside a ``TransactionalStorage/transaction(_:)``, together with the records they
/// describe (``OutboxTransaction``).
public protocol OutboxStorage: Sendable {
    /// The outbox entries `query` selects, by sequence.
    func outbox(_ query: OutboxQuery) async throws -> [OutboxEntry]
    /// How many outbox entries `query` selects (its limit ignored).
    func outboxCount(_ query: OutboxQuery) async throws -> Int
}
