import Depot
import DepotTesting
import Foundation
import Testing

/// Keys differ from property names: the nil must go out under the coding key.
struct Person: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var firstName: String
    var nickName: String?
    var age: Int?

    enum CodingKeys: String, CodingKey {
        case id
        case firstName = "first_name"
        case nickName = "nick_name"
        case age = "years"
    }
}

/// Writes its own keys in `encode(to:)`, with no property of those names.
struct Badge: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var label: String?

    enum Keys: String, CodingKey { case id, text = "badge_text", color }

    init(id: String, label: String?) {
        self.id = id
        self.label = label
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        label = try container.decodeIfPresent(String.self, forKey: .text)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(label, forKey: .text)
        try container.encodeIfPresent(label.map { _ in "red" }, forKey: .color)
    }
}

/// An entity whose encoding always fails.
struct Unwritable: Codable, Identifiable, Sendable {
    struct Refused: Error {}
    var id: String
    func encode(to encoder: any Encoder) throws { throw Refused() }
}

/// The same, getting `dictionary` from its `Encodable` conformance (which gives `{}` on failure).
struct UnwritableMapped: Codable, Identifiable, Sendable, DictionaryRepresentable {
    var id: String
    func encode(to encoder: any Encoder) throws { throw Unwritable.Refused() }
}

struct Repo<Entity: Codable & Identifiable & Sendable>: CRUDNetworkingRepository
where Entity.ID: PathComponentConvertible {
    let store: Networking
    let path: String
    var nilEncoding = NilEncoding.null
    var configuration: RepositoryConfiguration { RepositoryConfiguration(nilEncoding: nilEncoding) }
}

@Suite struct NilEncodingTests {
    @Test("a nil attribute goes out as null under its CodingKeys name on POST and PUT")
    func codingKeys() async throws {
        try await withStubServer { server in
            // Given
            server.resource("people", objects: [["id": "1", "first_name": "Ann", "nick_name": "Annie", "years": 3]])
            let people = Repo<Person>(store: NetworkingSession(url: server.url), path: "people")
            let ann = Person(id: "1", firstName: "Ann", nickName: nil, age: nil)
            // When
            _ = try await people.update(ann).value
            _ = try await people.create(Person(id: "2", firstName: "Bob", nickName: nil, age: 40)).value
            // Then
            let bodies = server.requests.map(\.json)
            #expect(bodies[0] == ["id": "1", "first_name": "Ann", "nick_name": nil, "years": nil])
            #expect(bodies[1] == ["id": "2", "first_name": "Bob", "nick_name": nil, "years": 40])
            let stored = try await people.read("1").value
            #expect(stored.nickName == nil, "the server's field must be cleared")
        }
    }

    @Test("a custom encode(to:) names its own nil keys; .omit still leaves them out")
    func customEncode() async throws {
        try await withStubServer { server in
            server.resource("badges")
            let session = NetworkingSession(url: server.url)
            _ = try await Repo<Badge>(store: session, path: "badges").create(Badge(id: "1", label: nil)).value
            _ = try await Repo<Badge>(store: session, path: "badges").create(Badge(id: "2", label: "hi")).value
            let omitting = Repo<Person>(store: session, path: "badges", nilEncoding: .omit)
            _ = try await omitting.create(Person(id: "3", firstName: "Cy", nickName: nil, age: nil)).value
            let bodies = server.requests.map(\.json)
            #expect(bodies[0] == ["id": "1", "badge_text": nil, "color": nil])
            #expect(bodies[1] == ["id": "2", "badge_text": "hi", "color": "red"])
            #expect(bodies[2] == ["id": "3", "first_name": "Cy"])
        }
    }

    @Test("an entity whose encoding throws rejects create with .encoding and sends nothing")
    func encodingFailure() async throws {
        try await withStubServer { server in
            server.resource("things")
            let session = NetworkingSession(url: server.url)
            let plain = await #expect(throws: DepotError.self) {
                try await Repo<Unwritable>(store: session, path: "things").create(Unwritable(id: "1")).value
            }
            let mapped = await #expect(throws: DepotError.self) {
                try await Repo<UnwritableMapped>(store: session, path: "things").create(UnwritableMapped(id: "1"))
                    .value
            }
            #expect(plain?.code == .encoding)
            #expect(mapped?.code == .encoding)
            #expect(server.requests.isEmpty)
            #expect(UnwritableMapped(id: "1").dictionary == [:], "the non-throwing property keeps its documented {}")
        }
    }
}
