import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// A note as an app models it: the server's `updated_at` stamp as a `Date`, not optional.
struct DatedNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String = ""
    var done: Bool = false
    var updatedAt: Date
}

/// Any real server's notes as ``DatedNote``s kept in SQLite, every read asked of the server first.
struct DatedNotes: CRUDNetworkingStorageRepository {
    typealias Entity = DatedNote
    let store: Networking
    let storage: Storage
    let path: String
    let configuration: RepositoryConfiguration
    var strategy: Strategy = .remoteFirst
}

/// The one setting a model with `var updatedAt: Date` needs against the servers of `Tests/Servers`:
/// ISO 8601 dates (zone-less stamps read as UTC) and snake_case keys.
let datedNoteCoding = EntityCoding(dates: .iso8601, keys: .snakeCase)

/// Creates a ``DatedNote`` on `server`, reads it back (alone and in the list), updates it and reads
/// it again, expecting every read's `updatedAt` to be the server's stamp: inside the test's time
/// window, and later after the update. Any `.decoding` failure fails the test.
///
/// - Parameters:
///   - server: the running server, reset.
///   - path: the notes' collection path, as the real-servers article writes it.
///   - configuration: the server's row of the article, with ``datedNoteCoding`` (or a preset's).
func expectServerStamps(on server: RealServer, path: String, configuration: RepositoryConfiguration) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let notes = DatedNotes(
        store: NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(20))),
        storage: try SQLiteStorage(path: directory.path("dated.sqlite")), path: path, configuration: configuration)
    // A second of slack each side: servers keep microseconds, `Date` keeps more.
    let start = Date(timeIntervalSinceNow: -1)

    // Given a note created with a stamp no server keeps
    let placeholder = Date(timeIntervalSince1970: 0)
    let created = try await notes.create(DatedNote(id: 0, title: "dated", updatedAt: placeholder)).value.value

    // When it is read back, alone and in the list
    let read = try await notes.read(created.id).value.value
    let listed = try await notes.readAll().value.value.filter { $0.id == created.id }

    // Then both carry the server's stamp
    #expect(read.updatedAt > start && read.updatedAt < Date(timeIntervalSinceNow: 1))
    #expect(listed.map(\.updatedAt) == [read.updatedAt])

    // When it is updated and read again
    var edited = read
    edited.title = "edited"
    _ = try await notes.update(edited).value
    let reread = try await notes.read(created.id).value.value
    let relisted = try await notes.readAll().value.value.filter { $0.id == created.id }

    // Then the server's later stamp is read, alone and in the list
    #expect(reread.title == "edited")
    #expect(reread.updatedAt > read.updatedAt && reread.updatedAt < Date(timeIntervalSinceNow: 1))
    #expect(relisted.map(\.updatedAt) == [reread.updatedAt])
}
