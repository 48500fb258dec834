import Depot
import Foundation
import GRDB
import Testing

@testable import DepotSQLite

/// Deleted rows are overwritten on disk, so erasing one account's record leaves no trace of it.
@Suite struct SecureDeleteTests {
    @Test("every connection has PRAGMA secure_delete on", arguments: [false, true])
    func pragmaIsOn(inMemory: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storage = inMemory ? try SQLiteStorage.inMemory() : try SQLiteStorage(path: directory.path("a.sqlite"))
        let writing = try await storage.writer.write { try Int.fetchOne($0, sql: "PRAGMA secure_delete") }
        let reading = try await storage.writer.read { try Int.fetchOne($0, sql: "PRAGMA secure_delete") }
        #expect(writing == 1)
        #expect(reading == 1)
    }

    @Test("a deleted record's text is gone from the file after a checkpoint")
    func deletedTextIsOverwritten() async throws {
        // Given
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("ann.sqlite")
        let secret = "secret-\(UUID().uuidString)"
        let storage = try SQLiteStorage(path: path)
        try await storage.upsert([record("1", ["text": "kept"]), record("2", ["text": .string(secret)])])
        try await storage.writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        #expect(try Self.contents(path).range(of: Data(secret.utf8)) != nil)
        // When
        #expect(try await storage.delete(collection: "messages", id: "2"))
        try await storage.writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        // Then
        #expect(try Self.contents(path).range(of: Data(secret.utf8)) == nil)
        #expect(try await storage.fetch(collection: "messages", id: "1")?.object["text"] == "kept")
    }

    /// The database file's bytes, then the WAL's if there is one.
    static func contents(_ path: String) throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if FileManager.default.fileExists(atPath: path + "-wal") {
            bytes += try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        }
        return bytes
    }
}
