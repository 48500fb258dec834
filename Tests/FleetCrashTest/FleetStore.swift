import Depot
import DepotSQLite
import Foundation

#if Postgres
    @_spi(Measurement) import DepotPostgres
#endif

/// The store the replicas share: an SQLite file (WAL, leases in the file) or a PostgreSQL
/// database (only in a build with `--traits Postgres`).
enum FleetStore: Sendable, CustomStringConvertible {
    /// `sqlite:<path>`.
    case sqlite(String)
    /// `postgres:<url>` (the URL itself starts with `postgres://`).
    case postgres(String)

    /// An open store and how to close it.
    struct Opened: Sendable {
        /// The store.
        let storage: Storage
        /// Closes it.
        let close: @Sendable () async -> Void
    }

    /// Parses `sqlite:<path>` or `postgres:<url>`.
    ///
    /// - Throws: ``FleetUsageError`` for anything else.
    init(parsing text: String) throws {
        if text.hasPrefix("sqlite:"), text.count > 7 {
            self = .sqlite(String(text.dropFirst(7)))
        } else if text.hasPrefix("postgres:"), text.count > 9 {
            self = .postgres(String(text.dropFirst(9)))
        } else {
            throw FleetUsageError(message: "--store takes sqlite:<path> or postgres:<url>, not \(text)")
        }
    }

    /// `sqlite:<path>` or `postgres:<url>`, as ``init(parsing:)`` reads it.
    var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): "postgres:\(url)"
        }
    }

    /// Whether the store outlives the run (so each run's entities need names of their own).
    var outlivesRun: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// Opens the store.
    ///
    /// - Throws: what opening threw; ``FleetUsageError`` for PostgreSQL in a build without the trait.
    func open() async throws -> Opened {
        switch self {
        case .sqlite(let path):
            let storage = try SQLiteStorage(path: path)
            return Opened(storage: storage, close: { try? storage.close() })
        case .postgres(let url):
            #if Postgres
                // FLEET_WRITE_LOCK (inherited by the replicas), a measurement of what serializing
                // writes costs: `schema` (one lock for every write, the store's way before
                // per-entity locks) or `off` (no lock; not safe for real use). Else per entity.
                let locking: PostgresWriteLocking =
                    switch ProcessInfo.processInfo.environment["FLEET_WRITE_LOCK"] {
                    case "off": .none
                    case "schema": .schema
                    default: .entity
                    }
                let storage = try await PostgresStorage.open(url: url, writeLocking: locking)
                return Opened(storage: storage, close: { await storage.close() })
            #else
                _ = url
                throw FleetUsageError(
                    message:
                        "--store postgres: needs a build with the Postgres trait: swift run --traits Postgres FleetCrashTest …"
                )
            #endif
        }
    }
}
