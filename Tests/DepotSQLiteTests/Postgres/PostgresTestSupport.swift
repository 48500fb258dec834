#if Postgres
    import Depot
    @testable import DepotPostgres
    import Foundation

    /// Runs `body` with a store on a fresh schema (dropped afterwards) and a second object on the
    /// same schema: two replicas of one service.
    func withPostgresReplicas(_ body: (PostgresStorage, PostgresStorage) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let first = try await PostgresFixture.make(in: directory)
        let second = try await PostgresFixture.make(in: directory)
        try await body(first, second)
    }

    /// The first element of `stream`, or a failure after `seconds`.
    func firstElement<Element: Sendable>(of stream: AsyncStream<Element>, within seconds: Int = 10) async throws
        -> Element
    {
        try await withThrowingTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await element in stream { return element }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let element = try await group.next() ?? nil else {
                throw DepotError(.timeout, "nothing arrived within \(seconds) s")
            }
            return element
        }
    }
#endif
