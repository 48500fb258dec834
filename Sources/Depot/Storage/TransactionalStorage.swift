import Foundation

/// A store that runs a read-modify-write atomically: records and outbox entries written in one
/// ``transaction(_:)`` commit together or not at all. Every write path of Depot (local writes,
/// server answers, claims, pulls) goes through it.
public protocol TransactionalStorage: Sendable {
    /// Runs `body` as one atomic read-modify-write: what it writes commits together when it
    /// returns, nothing is written if it throws, and no other write interleaves. Returns what
    /// `body` returned, or throws its error (or `.storage`).
    ///
    /// The body is synchronous and runs on a thread the store chooses, so it must not wait for
    /// other work; a store may run it again after a conflict it detects (PostgreSQL's
    /// serialization failures), so it must have no effect outside the transaction.
    func transaction<Output: Sendable>(
        _ body: @escaping @Sendable (any StorageTransaction) throws -> Output
    ) async throws -> Output
}
