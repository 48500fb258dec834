import Depot
import DepotTesting
import Foundation

struct Message: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var text: String
    var author: String?
}

struct MessageRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
}

/// Hand-mapped, with the id under "_id".
struct Note: Identifiable, Sendable, Equatable, DictionaryInitializable, DictionaryRepresentable {
    var id: String
    var body: String
    init(id: String, body: String) {
        self.id = id
        self.body = body
    }
    init(dictionary: JSONObject) throws {
        id = try dictionary.value("_id")
        body = try dictionary.value("body")
    }
    var dictionary: JSONObject { ["_id": .string(id), "body": .string(body)] }
}

struct NoteRepository: CRUDNetworkingRepository {
    typealias Entity = Note
    let store: Networking
    let path = "notes"
}

struct Counter: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var count: Int
}

struct CounterRepository: CRUDNetworkingRepository {
    typealias Entity = Counter
    let store: Networking
    let path = "counters"
}

struct Device: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var name: String
}

struct DeviceRepository: CRUDNetworkingRepository {
    typealias Entity = Device
    let store: Networking
    let path = "devices"
}

/// A repository with envelopes, an overridden route and nil attributes left out.
struct PeopleRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "people"
    var configuration: RepositoryConfiguration {
        RepositoryConfiguration(
            envelope: "data",
            collectionEnvelope: "resources",
            nilEncoding: .omit,
            routes: [.readAll: Route(.get, "/households/42/people")]
        )
    }
}

/// Collects log lines, for redaction tests.
final class LogCapture: Sendable {
    private let lines = LockedValue<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
