import Depot
import GRDB

// Every database access goes through `run` or `read`: they refuse once the store is closed or
// erased (before the access, and again inside it, for an access queued behind the erasure) and
// turn what fails into a `DepotError`.

extension SQLiteStorage {
    /// Where a store is in its life: a closed or erased store refuses every call.
    enum Lifecycle: Sendable, Equatable {
        /// Open: calls reach the database.
        case open
        /// Closed by ``SQLiteStorage/close()``.
        case closed
        /// Erased by ``SQLiteStorage/erase(force:)``: its file is gone.
        case erased
    }

    /// The store in words for messages: `"the store at /path"` or `"the in-memory store"`.
    var storeName: String { path.map { "the store at \($0)" } ?? "the in-memory store" }

    /// Throws `.storage` unless the store is open.
    static func ensureOpen(_ lifecycle: LockedValue<Lifecycle>, _ what: String, _ store: String) throws {
        switch lifecycle.withLock({ $0 }) {
        case .open: return
        case .closed: throw DepotError(.storage, "\(what): \(store) is closed")
        case .erased: throw DepotError(.storage, "\(what): \(store) was erased")
        }
    }

    func run<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access("cannot \(what)") { writer, check in
            try await writer.write { db in
                try check()
                return try body(db)
            }
        }
    }

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access("cannot \(what)") { writer, check in
            try await writer.read { db in
                try check()
                return try body(db)
            }
        }
    }

    /// Runs `body` on the writer if the store is open; `check` throws once it is not. A failure
    /// while the store closes or is erased is reported as that, not as SQLite's "connection is
    /// closed".
    private func access<T: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (any DatabaseWriter, @escaping @Sendable () throws -> Void) async throws -> T
    ) async throws -> T {
        let (writer, lifecycle, store) = (self.writer, self.lifecycle, storeName)
        let check: @Sendable () throws -> Void = { try Self.ensureOpen(lifecycle, what, store) }
        try check()
        // Its own task, as the promises it replaced: a caller's cancellation must not abort a
        // write half-way (GRDB fails the commit of a cancelled task), or an answer the server
        // gave would not be stored.
        return try await Task {
            do {
                return try await Self.storageErrors(what) { try await body(writer, check) }
            } catch let error as DepotError where error.code == .storage {
                try check()
                throw error
            }
        }.value
    }

    /// Runs `body`, its failure wrapped as a `.storage` error that says `what` failed. `what` is
    /// only built on failure: a pull writes a million rows, each naming itself.
    static func storageErrors<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw wrap(error, what())
        }
    }

    /// Runs `body`, its failure wrapped as a `.storage` error that says `what` failed.
    static func storageErrors<T>(_ what: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw wrap(error, what())
        }
    }

    private static func wrap(_ error: any Error, _ what: String) -> any Error {
        if let failure = error as? BodyFailure { return failure.error }
        if error is DepotError { return error }
        if error is CancellationError { return DepotError(.cancelled, "\(what): cancelled", underlying: error) }
        return DepotError(.storage, "\(what): \(error)", underlying: error)
    }
}
