#if Postgres
    import Depot
    import Foundation
    import Logging
    import NIOPosix
    import PostgresNIO

    /// A `Storage` in a PostgreSQL database, shared by every replica of a service: one local copy
    /// of the remote data and one outbox, whichever replica took the write. Records are `jsonb`
    /// rows per collection with their sync state and server snapshot; outbox entries carry their
    /// lease, so two replicas never send one entry at once. The store's tables live in their own
    /// schema (`depot` unless told), created and versioned on first use.
    ///
    /// ```swift
    /// let storage = try await PostgresStorage.open(url: "postgres://app@db.internal:5432/app")
    /// let notes = NoteRepository(store: storage)
    /// try await notes.create(Note(id: "1", text: "hi")).value  // repositories keep their promises
    /// await storage.close()
    /// ```
    ///
    /// A write transaction takes a transaction-level advisory lock for each entity it touches,
    /// before its first read or write of that entity (``PostgresTransaction``): two transactions
    /// that touch one entity run one after the other, on every replica, so a body reads, decides
    /// and writes without a race, while writes of different entities run in parallel. Outbox
    /// claims never wait: they skip entries whose entity or row another transaction holds. Reads
    /// outside a transaction take no lock. Every
    /// commit is announced with `NOTIFY`: each storage object listens, so `changes(collection:)`,
    /// live queries and forwarders on every replica see every replica's writes.
    public final class PostgresStorage: Storage, Sendable {
        /// The client every query runs on.
        let client: PostgresClient
        /// The schema that holds the store's tables.
        public let schema: String
        /// This object's id, sent with its change notices so it skips its own.
        let identity = UUID.randomV4()
        /// The threads transaction bodies run on (never Swift's cooperative pool: a body blocks
        /// its thread on each query).
        let threads: NIOThreadPool
        /// The logger queries log to.
        let logger: Logger
        /// Open or closed: checked before every call.
        let lifecycle = LockedValue(Lifecycle.open)
        /// True once ``close()`` began: it shuts down once.
        let shutDown = LockedValue(false)
        /// The task running a client this object made (``open(url:schema:logger:connectionTimeout:)``), if any.
        let clientTask = LockedValue<Task<Void, Never>?>(nil)
        /// The task listening for other objects' change notices.
        let listenerTask = LockedValue<Task<Void, Never>?>(nil)
        /// The server process of the connection this object listens on, recorded when it begins to
        /// listen (nil before, or while it listens again after a lost connection).
        let listenerBackend = LockedValue<Int32?>(nil)
        /// How many statements this object sent to the server (``statementCount``).
        let statements = LockedValue(0)
        /// How write transactions serialize: per entity, except in a measurement
        /// (``open(url:schema:logger:writeLocking:connectionTimeout:)``).
        let writeLocking: PostgresWriteLocking
        /// How long a call waits for a pooled connection before it fails with `.storage`: a client
        /// that is not running, a server it cannot reach, or a pool with every connection in use.
        /// The bound is on the wait only; a statement that has its connection runs to its end.
        public let connectionTimeout: Duration

        /// Where a store is in its life: a closed store refuses every call.
        enum Lifecycle: Sendable, Equatable {
            case open
            case closed
            case erased
        }

        /// Connects to the database at `url` (`postgres://user:password@host:port/database`, no
        /// TLS), creates or upgrades the store's schema, and starts listening for other replicas'
        /// changes. The store owns its client: call ``close()`` when done.
        ///
        /// - Parameters:
        ///   - url: the server and database.
        ///   - schema: the schema of the store's tables: lowercase letters, digits and `_`.
        ///   - logger: where the client logs.
        ///   - connectionTimeout: how long a call waits for a pooled connection
        ///     (``connectionTimeout``).
        /// - Returns: the open store.
        /// - Throws: `DepotError` `.invalidRequest` for a URL or schema name it cannot use,
        ///   `.storage` when the server cannot be reached or the schema cannot be created.
        public static func open(
            url: String, schema: String = "depot",
            logger: Logger = Logger(label: "Depot.PostgresStorage"), connectionTimeout: Duration = .seconds(30)
        ) async throws -> PostgresStorage {
            try await open(
                url: url, schema: schema, logger: logger, writeLocking: .entity, connectionTimeout: connectionTimeout)
        }

        /// ``open(url:schema:logger:connectionTimeout:)`` for a measurement: with `serializingWrites` false, write
        /// transactions take no lock at all (``PostgresWriteLocking/none``), so replicas' writes
        /// interleave (bodies that read, decide and write may then race: never for an app's store).
        @_spi(Measurement)
        public static func open(
            url: String, schema: String = "depot",
            logger: Logger = Logger(label: "Depot.PostgresStorage"), serializingWrites: Bool
        ) async throws -> PostgresStorage {
            try await open(url: url, schema: schema, logger: logger, writeLocking: serializingWrites ? .entity : .none)
        }

        /// ``open(url:schema:logger:connectionTimeout:)`` for a measurement of what each way of serializing writes
        /// costs (``PostgresWriteLocking``).
        @_spi(Measurement)
        public static func open(
            url: String, schema: String = "depot",
            logger: Logger = Logger(label: "Depot.PostgresStorage"), writeLocking: PostgresWriteLocking,
            connectionTimeout: Duration = .seconds(30)
        ) async throws -> PostgresStorage {
            let configuration = try configuration(url: url)
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            // The client must be running before the first lease (postgres-nio warns otherwise):
            // wait until its task has begun.
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                start.finish()
                await client.run()
            }
            for await _ in started {}
            await Task.yield()
            do {
                let storage = try await PostgresStorage(
                    client: client, schema: schema, logger: logger, writeLocking: writeLocking,
                    connectionTimeout: connectionTimeout)
                storage.clientTask.withLock { $0 = task }
                return storage
            } catch {
                task.cancel()
                await task.value
                throw error
            }
        }

        /// A store on the app's own client, which the app runs (`client.run()`) and shuts down
        /// after ``close()``. Creates or upgrades the store's schema and starts listening for
        /// other replicas' changes.
        ///
        /// - Parameters:
        ///   - client: a running `PostgresClient`.
        ///   - schema: the schema of the store's tables: lowercase letters, digits and `_`.
        ///   - connectionTimeout: how long a call waits for a pooled connection
        ///     (``connectionTimeout``): a client the app never runs, or whose `run()` ended, fails
        ///     the call then, instead of waiting for ever.
        /// - Throws: `DepotError` `.invalidRequest` for a schema name it cannot use, `.storage`
        ///   when the schema cannot be created or no connection came within `connectionTimeout`.
        public convenience init(
            client: PostgresClient, schema: String = "depot", connectionTimeout: Duration = .seconds(30)
        ) async throws {
            try await self.init(
                client: client, schema: schema, logger: Logger(label: "Depot.PostgresStorage"),
                connectionTimeout: connectionTimeout)
        }

        init(
            client: PostgresClient, schema: String, logger: Logger, writeLocking: PostgresWriteLocking = .entity,
            connectionTimeout: Duration = .seconds(30)
        ) async throws {
            guard Self.isPlainName(schema) else {
                throw DepotError(
                    .invalidRequest,
                    "schema \(schema.debugDescription) is not a plain name (lowercase letters, digits, _; 1–50 characters)"
                )
            }
            self.client = client
            self.schema = schema
            self.logger = logger
            self.writeLocking = writeLocking
            self.connectionTimeout = connectionTimeout
            threads = NIOThreadPool(numberOfThreads: 2)
            threads.start()
            do {
                try await createSchema()
                try await startListening()
            } catch {
                try? await threads.shutdownGracefully()
                throw error
            }
        }

        /// Stops listening, shuts down the client the store made (not an app's own), and stops
        /// the store's threads; later calls reject with `.storage`.
        public func close() async {
            lifecycle.withLock { if $0 == .open { $0 = .closed } }
            let first = shutDown.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            guard first else { return }
            if let listener = listenerTask.withLock({ $0 }) {
                listener.cancel()
                await listener.value
            }
            if let task = clientTask.withLock({ $0 }) {
                task.cancel()
                await task.value
            }
            try? await threads.shutdownGracefully()  // nothing is left to run on them
        }

        /// How many statements this object sent to the server since it opened: reads, writes,
        /// `BEGIN`, entity locks, change notices, `COMMIT`. postgres-nio sends a connection's
        /// next statement once the previous one answered, so each is one round trip.
        @_spi(Measurement)
        public var statementCount: Int { statements.withLock { $0 } }

        /// True for a name that can stand unquoted-safe in SQL as a schema name.
        static func isPlainName(_ name: String) -> Bool {
            guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                name.utf8.count <= 50
            else { return false }
            return name.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "_")
            }
        }

        /// A client configuration from a `postgres://` URL (TLS off: a loopback or private network).
        static func configuration(url text: String) throws -> PostgresClient.Configuration {
            guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""),
                let host = url.host, !host.isEmpty
            else {
                throw DepotError(.invalidRequest, "\(text.debugDescription) is not a postgres:// URL with a host")
            }
            let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
            var configuration = PostgresClient.Configuration(
                host: host, port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
                database: database.isEmpty ? nil : database, tls: .disable)
            configuration.options.maximumConnections = 12
            return configuration
        }
    }
#endif
