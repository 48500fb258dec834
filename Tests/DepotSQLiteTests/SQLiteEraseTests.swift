import Depot
import DepotSQLite
import Foundation
import Testing

/// One file per account: erase and destroy remove the database file with its `-wal` and `-shm`.
@Suite struct SQLiteEraseTests {
    static func files(_ path: String) -> [String] { [path, path + "-wal", path + "-shm"] }

    static func existing(_ path: String) -> [String] {
        files(path).filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// A store at `path` written through, so its WAL and shared-memory files exist.
    static func writtenStore(_ path: String) async throws -> SQLiteStorage {
        let storage = try SQLiteStorage(path: path)
        try await storage.upsert((1...20).map { record("\($0)", ["text": .string("message \($0)")]) })
        #expect(existing(path) == files(path))
        return storage
    }

    @Test("erase removes the database, -wal and -shm files")
    func eraseRemovesFiles() async throws {
        // Given
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        // When
        try await storage.erase()
        // Then
        #expect(Self.existing(path) == [])
    }

    @Test("a refused erase leaves the files, the data and the store in use")
    func refusedEraseKeepsFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        try await StorageEraseTests.recordPendingWrite(storage)

        let error = await #expect(throws: DepotError.self) { try await storage.erase() }
        #expect(error?.code == .unsyncedWrites)
        #expect(error?.message.contains("the store at \(path)") == true)

        #expect(Self.existing(path) == Self.files(path))
        try await storage.upsert([record("21", ["text": "still open"])])
        #expect(try await storage.fetch(collection: "messages", matching: .all).count == 21)
        try storage.close()
        let reopened = try SQLiteStorage(path: path)
        #expect(try await reopened.outboxCount(OutboxQuery()) == 1)
    }

    @Test("erase(force: true) removes the files of a store with unsent writes")
    func forcedEraseRemovesFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        try await StorageEraseTests.recordPendingWrite(storage)
        try await storage.upsert([record("99", ["text": "local"], state: .created)])
        #expect(
            try await storage.unsyncedSummary() == UnsyncedSummary(pendingEntries: 1, unsyncedRecords: 1))

        try await storage.erase(force: true)

        #expect(Self.existing(path) == [])
        let reopened = try SQLiteStorage(path: path)
        #expect(try await reopened.fetch(collection: "messages", matching: .all) == [])
        #expect(try await reopened.unsyncedSummary().isEmpty)
    }

    @Test("erase leaves the other accounts' stores alone")
    func otherAccountsUntouched() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let ann = try await Self.writtenStore(directory.path("ann.sqlite"))
        let bob = try await Self.writtenStore(directory.path("bob.sqlite"))

        try await ann.erase()

        #expect(Self.existing(directory.path("ann.sqlite")) == [])
        #expect(try await bob.fetch(collection: "messages", matching: .all).count == 20)
    }

    @Test("calls after erase reject with .storage; close after erase is harmless")
    func callsAfterEraseOfFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        try await storage.erase()

        try await StorageEraseTests.expectErased { try await storage.fetch(collection: "messages", id: "1") }
        try storage.close()
        try await StorageEraseTests.expectErased { try await storage.upsert([record("1", ["text": "a"])]) }
        #expect(Self.existing(path) == [])
    }

    @Test("erase of a closed store rejects with .storage and removes nothing")
    func eraseAfterClose() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        try storage.close()

        let error = await #expect(throws: DepotError.self) { try await storage.erase(force: true) }
        #expect(error?.code == .storage)
        #expect(error?.message.contains("is closed") == true)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("writes racing an erase either land before it or reject with .storage")
    func writesRacingErase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)

        let outcomes = await withTaskGroup(of: DepotError.Code?.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        try await storage.upsert([record("race-\(index)", ["text": "x"])])
                        return nil
                    } catch {
                        return (error as? DepotError)?.code ?? DepotError.Code("not a DepotError")
                    }
                }
            }
            group.addTask {
                do {
                    try await storage.erase()
                    return nil
                } catch {
                    return (error as? DepotError)?.code ?? DepotError.Code("not a DepotError")
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        #expect(outcomes.allSatisfy { $0 == nil || $0 == .storage })
        #expect(Self.existing(path) == [])
    }

    @Test("destroy(path:) removes the files a store left behind")
    func destroyRemovesFiles() async throws {
        // Given the files of a store that was not closed (copied while it was open)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = try await Self.writtenStore(directory.path("open.sqlite"))
        let path = directory.path("left.sqlite")
        for (source, copy) in zip(Self.files(directory.path("open.sqlite")), Self.files(path)) {
            try FileManager.default.copyItem(atPath: source, toPath: copy)
        }
        try storage.close()
        #expect(Self.existing(path) == Self.files(path))
        // When
        try SQLiteStorage.destroy(path: path)
        // Then
        #expect(Self.existing(path) == [])
    }

    @Test("destroy(path:) removes a closed store's file")
    func destroyClosedStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let storage = try await Self.writtenStore(path)
        try storage.close()
        #expect(FileManager.default.fileExists(atPath: path))

        try SQLiteStorage.destroy(path: path)

        #expect(Self.existing(path) == [])
    }

    @Test("destroy(path:) of a path with no files is not an error")
    func destroyNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SQLiteStorage.destroy(path: directory.path("never.sqlite"))
    }

    @Test("destroy(path:) reports a file it cannot remove as .storage")
    func destroyFailure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        try FileManager.default.createDirectory(atPath: path + "-shm", withIntermediateDirectories: false)

        let error = #expect(throws: DepotError.self) { try SQLiteStorage.destroy(path: path) }
        #expect(error?.code == .storage)
        #expect(error?.message.contains("cannot remove \(path)-shm") == true)
    }
}
