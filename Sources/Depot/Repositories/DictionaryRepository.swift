import Foundation

/// CRUD on a REST collection with no model type: entities are ``JSONObject``s whose id is at
/// `idKey`.
///
/// ```swift
/// let people = DictionaryRepository(store: session, path: "people")
/// let ann = try await people.create(["name": "Ann"]).value
/// ```
public struct DictionaryRepository: Sendable {
    /// The transport.
    public let store: Networking
    /// The collection's path.
    public let path: String
    /// The key that holds an object's id (`"id"` by default, `"_id"` for some servers).
    public let idKey: String
    /// Envelopes, nil encoding, route overrides.
    public let configuration: RepositoryConfiguration

    /// Makes a repository.
    public init(
        store: Networking, path: String, idKey: String = "id",
        configuration: RepositoryConfiguration = RepositoryConfiguration()
    ) {
        self.store = store
        self.path = path
        self.idKey = idKey
        self.configuration = configuration
    }

    private var base: AnyEntityRepository {
        AnyEntityRepository(store: store, path: path, configuration: configuration)
    }

    /// `POST /path`; returns the object the server made.
    public func create(_ object: JSONObject) -> Promise<JSONObject> {
        base.create(object).map(\.object)
    }

    /// `GET /path/:id`.
    public func read(_ id: String) -> Promise<JSONObject> {
        base.read(id).map(\.object)
    }

    /// `GET /path?query`.
    public func readAll(query: [String: String] = [:]) -> Promise<[JSONObject]> {
        base.readAll(query: query).map { $0.map(\.object) }
    }

    /// `PUT /path/:id` with the object, whose id is at `idKey`.
    public func update(_ object: JSONObject) -> Promise<JSONObject> {
        do {
            return base.update(try ObjectEntity(object, idKey: idKey)).map(\.object)
        } catch {
            return Promise(error: error)
        }
    }

    /// `DELETE /path/:id`.
    public func delete(id: String) -> Promise<Void> {
        base.delete(id: id)
    }

    /// `DELETE /path/:id` for the object, whose id is at `idKey`.
    public func delete(_ object: JSONObject) -> Promise<Void> {
        do {
            return base.delete(try ObjectEntity(object, idKey: idKey))
        } catch {
            return Promise(error: error)
        }
    }
}

/// A JSON object seen as an entity, its id read from `idKey`.
struct ObjectEntity: Identifiable, Sendable, DictionaryInitializable, DictionaryRepresentable {
    var object: JSONObject
    var id: String

    init(_ object: JSONObject, idKey: String) throws {
        guard let json = object[idKey] else {
            throw DepotError(.invalidRequest, "the object has no \(idKey.debugDescription) key for its id")
        }
        switch json {
        case .string(let text): id = text
        case .integer(let number): id = String(number)
        default: throw DepotError(.invalidRequest, "\(idKey): expected a string or integer id, found \(json.kindName)")
        }
        self.object = object
    }

    /// Wraps an answer; DictionaryRepository hands back only `object`, so the id is not read.
    init(dictionary: JSONObject) throws {
        object = dictionary
        id = ""
    }

    var dictionary: JSONObject { object }
}

struct AnyEntityRepository: CRUDNetworkingRepository {
    typealias Entity = ObjectEntity
    let store: Networking
    let path: String
    let configuration: RepositoryConfiguration
}
