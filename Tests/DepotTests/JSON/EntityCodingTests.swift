import DepotTesting
import Foundation
import Testing

@testable import Depot

/// A model as servers write it: a date, a snake_case key.
struct StampedNote: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var updatedAt: Date
}

/// The same model, declaring the dictionary protocols (their `Codable` defaults).
struct MappedStampedNote: Codable, Identifiable, Sendable, Equatable, DictionaryInitializable,
    DictionaryRepresentable
{
    var id: Int
    var title: String
    var updatedAt: Date
}

struct StampedNotes: CRUDNetworkingRepository {
    typealias Entity = StampedNote
    let store: Networking
    let path = "notes"
    var configuration: RepositoryConfiguration {
        var configuration = RepositoryConfiguration()
        configuration.coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
        return configuration
    }
}

/// The same notes in a store alone, spelled as the server spells them.
struct LocalStampedNotes: StorageRepository {
    typealias Entity = StampedNote
    let storage: Storage
    let collection = "notes"
    var coding: EntityCoding { EntityCoding(dates: .iso8601, keys: .snakeCase) }
}

@Suite struct EntityCodingTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// 2026-11-28T19:28:05Z.
    static let instant = Date(timeIntervalSince1970: 1_795_894_085)

    @Test(
        "ISO 8601 stamps as servers write them",
        arguments: [
            ("2026-11-28T19:28:05Z", 0.0),
            ("2026-11-28T19:28:05.981Z", 0.981),
            ("2026-11-28T19:28:05.981234Z", 0.981234),
            ("2026-11-28T20:28:05.5+01:00", 0.5),
            ("2026-11-28T14:28:05-0500", 0),
            ("2026-11-28 19:28:05", 0),
            ("2026-11-28T19:28:05.981234", 0.981234),
        ])
    func readsStamps(text: String, fraction: Double) throws {
        let date = try #require(ISO8601Stamp.date(text, zonelessIn: Self.utc))
        #expect(abs(date.timeIntervalSince1970 - (Self.instant.timeIntervalSince1970 + fraction)) < 0.000_001)
    }

    @Test("a zone-less stamp is read in the zone given", arguments: ["2026-11-28T20:28:05"])
    func zoneless(text: String) throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(ISO8601Stamp.date(text, zonelessIn: paris) == Self.instant)
    }

    @Test(
        "text that is not a stamp is refused, never a trap",
        arguments: [
            "", "2026", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-28T24:00:00Z",
            "2026-11-28T19:28:05.Z", "2026-11-28T19:28:05+25:00", "0000-01-01T00:00:00Z", "２０２６-11-28T19:28:05Z",
            "2026-11-28T19:28:05Zjunk", "99999999999999999999-01-01",
        ])
    func refuses(text: String) {
        #expect(ISO8601Stamp.date(text, zonelessIn: Self.utc) == nil)
    }

    @Test("stamps are written in UTC: milliseconds, microseconds or none; none outside years 1–9999")
    func writes() {
        #expect(ISO8601Stamp.text(Self.instant, fractionalSeconds: false) == "2026-11-28T19:28:05Z")
        #expect(ISO8601Stamp.text(Self.instant, fractionalSeconds: true) == "2026-11-28T19:28:05.000Z")
        let millis = Self.instant.addingTimeInterval(0.981)
        #expect(ISO8601Stamp.text(millis, fractionalSeconds: true) == "2026-11-28T19:28:05.981Z")
        let micros = Self.instant.addingTimeInterval(0.981_234)
        #expect(ISO8601Stamp.text(micros, fractionalSeconds: true) == "2026-11-28T19:28:05.981234Z")
        #expect(ISO8601Stamp.text(Date(timeIntervalSince1970: -1), fractionalSeconds: false) == "1969-12-31T23:59:59Z")
        #expect(ISO8601Stamp.text(Date(timeIntervalSince1970: 1e300), fractionalSeconds: true) == nil)
        #expect(ISO8601Stamp.text(Date(timeIntervalSince1970: .nan), fractionalSeconds: true) == nil)
    }

    @Test("a Codable entity with a Date reads and writes under the coding, through both mapping roads")
    func mapping() throws {
        let coding = EntityCoding(dates: .iso8601, keys: .snakeCase)
        let json: JSON = ["id": 1, "title": "a", "updated_at": "2026-11-28T19:28:05.981Z"]
        let plain = try JSONMapping.entity(StampedNote.self, from: json, coding: coding)
        let mapped = try JSONMapping.entity(MappedStampedNote.self, from: json, coding: coding)
        #expect(abs(plain.updatedAt.timeIntervalSince1970 - 1_795_894_085.981) < 0.000_5)
        #expect(mapped.updatedAt == plain.updatedAt)
        #expect(try JSONMapping.object(plain, coding: coding) == json.objectValue)
        #expect(try JSONMapping.object(mapped, coding: coding) == json.objectValue)
        // The default stays Foundation's: a number.
        let error = #expect(throws: DepotError.self) { try JSONMapping.entity(StampedNote.self, from: json) }
        #expect(error?.code == .decoding)
    }

    @Test("seconds and milliseconds since 1970")
    func epochs() throws {
        let seconds = EntityCoding(dates: .secondsSince1970, keys: .snakeCase)
        let millis = EntityCoding(dates: .millisecondsSince1970, keys: .snakeCase)
        let note = try JSONMapping.entity(
            StampedNote.self, from: ["id": 1, "title": "a", "updated_at": 1_795_894_085], coding: seconds)
        #expect(note.updatedAt == Self.instant)
        #expect(try JSONMapping.object(note, coding: millis)["updated_at"] == .integer(1_795_894_085_000))
    }

    @Test(
        "snake_case keys split as JSONEncoder splits them",
        arguments: [
            ("updatedAt", "updated_at"), ("id", "id"), ("myURLValue", "my_url_value"), ("URL", "url"), ("a1B", "a1_b"),
        ])
    func snakeCase(name: String, key: String) {
        #expect(KeyCoding.snakeCased(name) == key)
    }

    @Test("a repository with the coding reads and writes a model with `var updatedAt: Date`")
    func repository() async throws {
        try await withStubServer { server in
            // Given
            let row: JSON = ["id": 1, "title": "a", "updated_at": "2026-11-28T19:28:05.981234"]
            server.route(.get, "notes/:id", response: .json(row))
            server.route(.get, "notes", response: .json([row]))
            server.route(.put, "notes/:id") { request, _ in .json((try? JSON(parsing: request.body)) ?? .null) }
            let notes = StampedNotes(store: NetworkingSession(url: server.url))
            // When
            var note = try await notes.read(1).value
            let all = try await notes.readAll().value
            note.title = "b"
            let updated = try await notes.update(note).value
            // Then
            #expect(abs(note.updatedAt.timeIntervalSince1970 - 1_795_894_085.981_234) < 0.000_001)
            #expect(all == [StampedNote(id: 1, title: "a", updatedAt: all[0].updatedAt)])
            let sent = try JSON(parsing: try #require(server.requests.last?.body))
            #expect(sent["updated_at"] == "2026-11-28T19:28:05.981234Z")
            #expect(updated.updatedAt == note.updatedAt && updated.title == "b")
        }
    }

    @Test("the Django REST Framework preset reads ISO 8601 dates")
    func preset() throws {
        let coding = RepositoryConfiguration.djangoREST.coding
        let note = try JSONMapping.entity(
            MappedStampedNote.self, from: ["id": 1, "title": "a", "updatedAt": "2026-11-28T19:28:05.981Z"],
            coding: coding)
        #expect(abs(note.updatedAt.timeIntervalSince1970 - 1_795_894_085.981) < 0.000_5)
    }

    @Test("a storage repository stores dates and keys in its coding's spelling")
    func storage() async throws {
        let notes = LocalStampedNotes(storage: InMemoryStorage())
        let note = StampedNote(id: 1, title: "a", updatedAt: Self.instant)
        _ = try await notes.create(note).value
        #expect(try await notes.read(1).value == note)
        let stored = try await notes.storage.fetch(collection: "notes", id: "1")
        #expect(stored?.object["updated_at"] == "2026-11-28T19:28:05.000Z")
    }
}
