#if Postgres
    import Depot
    @testable import DepotPostgres
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The Postgres stores of the tests: one fresh schema per test directory (`t_` and the
    /// directory's UUID), on the server at `DEPOT_POSTGRES_URL` (`scripts/postgres start`), closed
    /// and dropped when the directory is cleaned up.
    ///
    /// Without the variable, or with a server that does not answer, the Postgres cases are left out
    /// with a message; in CI (`CI` set) they stay in and fail.
    enum PostgresFixture {
        /// The server's URL, or nil.
        static let url = ProcessInfo.processInfo.environment["DEPOT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

        /// Whether the Postgres cases run: in CI always (so a missing server fails them).
        static let isEnabled: Bool = {
            if ProcessInfo.processInfo.environment["CI"] != nil { return true }
            guard let url else {
                print(
                    "Postgres cases skipped: DEPOT_POSTGRES_URL is not set (export DEPOT_POSTGRES_URL=$(scripts/postgres start))"
                )
                return false
            }
            guard reachable(url) else {
                print("Postgres cases skipped: nothing answers at \(url)")
                return false
            }
            return true
        }()

        /// The stores opened per test directory, to close when it is cleaned up.
        private static let open = LockedValue<[String: [PostgresStorage]]>([:])

        /// The schema of `directory`'s store.
        static func schema(_ directory: TemporaryDirectory) -> String {
            "t_"
                + directory.url.lastPathComponent.replacingOccurrences(of: "depot-tests-", with: "")
                .replacingOccurrences(of: "-", with: "").lowercased()
        }

        /// A store on `directory`'s schema (the same schema each time for one directory).
        static func make(in directory: TemporaryDirectory) async throws -> PostgresStorage {
            guard let url else {
                throw DepotError(.storage, "DEPOT_POSTGRES_URL is not set: start a server with scripts/postgres start")
            }
            let storage = try await PostgresStorage.open(url: url, schema: schema(directory))
            open.withLock { $0[directory.url.path, default: []].append(storage) }
            return storage
        }

        /// Closes `directory`'s stores and drops its schema, in the background (cleanUp is synchronous).
        static func release(_ directory: TemporaryDirectory) {
            guard let storages = open.withLock({ $0.removeValue(forKey: directory.url.path) }), !storages.isEmpty
            else { return }
            Task {
                try? await storages[0].dropSchema()
                for storage in storages { await storage.close() }
            }
        }

        /// True when a TCP connection to the URL's host and port opens within a second.
        static func reachable(_ text: String) -> Bool {
            guard let url = URLComponents(string: text), let host = url.host else { return false }
            let port = url.port ?? 5432
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            #if canImport(Glibc)
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
                hints.ai_socktype = SOCK_STREAM
            #endif
            var result: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return false }
            defer { freeaddrinfo(result) }
            let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0
        }
    }
#endif
