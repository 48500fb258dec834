import Depot
import DepotSQLite
import Foundation

struct Message: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
    var author: String?
    var likes: Int?

    init(id: String, text: String, author: String? = nil, likes: Int? = nil) {
        self.id = id
        self.text = text
        self.author = author
        self.likes = likes
    }
}

/// A fresh temporary directory per test, removed by the caller with `cleanUp()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("depot-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
        #if Postgres
            PostgresFixture.release(self)
        #endif
    }
}

/// The storages every storage test runs against. With the `Postgres` trait, `.postgres` joins them
/// when `DEPOT_POSTGRES_URL` names a reachable server (see ``PostgresFixture``).
enum StorageKind: String, CaseIterable, Sendable {
    case memory
    case sqliteFile
    case sqliteInMemory
    #if Postgres
        case postgres
    #endif

    static var allCases: [StorageKind] {
        #if Postgres
            [.memory, .sqliteFile, .sqliteInMemory] + (PostgresFixture.isEnabled ? [.postgres] : [])
        #else
            [.memory, .sqliteFile, .sqliteInMemory]
        #endif
    }

    /// The store of this kind for `directory`: the same store again when called twice with one
    /// directory (the same file, the same Postgres schema).
    func make(in directory: TemporaryDirectory) async throws -> any Storage {
        switch self {
        case .memory: InMemoryStorage()
        case .sqliteFile: try SQLiteStorage(path: directory.path("store.sqlite"), indexes: ["messages": ["author"]])
        case .sqliteInMemory: try SQLiteStorage.inMemory()
        #if Postgres
            case .postgres: try await PostgresFixture.make(in: directory)
        #endif
        }
    }
}

func record(_ id: String, _ object: JSONObject, state: SyncState = .synced, collection: String = "messages")
    -> StoredRecord
{
    var object = object
    object["id"] = .string(id)
    return StoredRecord(
        collection: collection, id: id, object: object, syncState: state, snapshot: state == .synced ? object : nil)
}
