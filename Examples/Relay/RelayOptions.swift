import Depot
import DepotSQLite
import Foundation

#if Postgres
    import DepotPostgres
#endif

/// Relay's command line: `[--port N] [--remote URL] [--postgres URL | --sqlite PATH] [--demo]`.
///
/// - `--port`: the port to serve on (0, the default, takes a free one).
/// - `--remote`: the remote API to keep a copy of; without it, Relay embeds a stub server.
/// - `--postgres`: keep the copy and the outbox in this PostgreSQL database, shared by every
///   replica that names it (needs `--traits Postgres`).
/// - `--sqlite`: keep them in this SQLite file, which replicas on one host may share; without
///   either, a temporary SQLite file.
/// - `--demo`: write a note through the relay, print what both sides hold, and stop.
struct RelayOptions {
    /// The port to serve on; 0 for a free one.
    var port = 0
    /// The remote API, or nil for the embedded stub server.
    var remote: URL?
    /// The PostgreSQL URL, or nil for an SQLite file.
    var postgres: String?
    /// The SQLite file, or nil for a temporary one.
    var sqlite: String?
    /// Whether to run the demo and stop.
    var demo = false

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``RelayUsageError`` for an unknown option or a missing or malformed value.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--demo": demo = true
            case "--port":
                guard let port = rest.popFirst().flatMap(Int.init), (0...65_535).contains(port) else {
                    throw RelayUsageError(message: "--port needs a port number")
                }
                self.port = port
            case "--remote":
                guard let url = rest.popFirst().flatMap(URL.init(string:)), url.scheme != nil else {
                    throw RelayUsageError(message: "--remote needs a URL such as http://127.0.0.1:8080")
                }
                remote = url
            case "--postgres":
                guard let url = rest.popFirst(), url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                    throw RelayUsageError(
                        message: "--postgres needs a URL such as postgres://user@127.0.0.1:5432/depot")
                }
                postgres = url
            case "--sqlite":
                guard let path = rest.popFirst(), !path.isEmpty else {
                    throw RelayUsageError(message: "--sqlite needs a file path")
                }
                sqlite = path
            default: throw RelayUsageError(message: "unknown option \(option)")
            }
        }
        if postgres != nil, sqlite != nil {
            throw RelayUsageError(message: "--postgres and --sqlite exclude each other")
        }
    }

    /// Opens the store the options name: the PostgreSQL database, the SQLite file, or a new
    /// SQLite file in `directory`. Returns it and how to close it.
    ///
    /// - Throws: ``RelayUsageError`` for `--postgres` in a build without the Postgres trait;
    ///   what opening the store threw.
    func openStorage(in directory: URL) async throws -> (Storage, @Sendable () async throws -> Void) {
        guard let postgres else {
            let storage = try SQLiteStorage(path: sqlite ?? directory.appendingPathComponent("relay.sqlite").path)
            return (storage, { try storage.close() })
        }
        #if Postgres
            let storage = try await PostgresStorage.open(url: postgres)
            return (storage, { await storage.close() })
        #else
            _ = postgres
            throw RelayUsageError(
                message:
                    "--postgres needs a build with the Postgres trait: swift run --traits Postgres Relay --postgres <url>"
            )
        #endif
    }
}

/// A command line Relay does not understand.
struct RelayUsageError: Error, CustomStringConvertible {
    /// What is wrong.
    var message: String
    /// The message with the usage.
    var description: String {
        "Relay: \(message)\nusage: Relay [--port N] [--remote URL] [--postgres URL | --sqlite PATH] [--demo]"
    }
}
