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
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// The storages every storage test runs against.
enum StorageKind: String, CaseIterable, Sendable {
    case memory
    case sqliteFile
    case sqliteInMemory

    func make(in directory: TemporaryDirectory) throws -> any Storage {
        switch self {
        case .memory: InMemoryStorage()
        case .sqliteFile: try SQLiteStorage(path: directory.path("store.sqlite"), indexes: ["messages": ["author"]])
        case .sqliteInMemory: try SQLiteStorage.inMemory()
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
