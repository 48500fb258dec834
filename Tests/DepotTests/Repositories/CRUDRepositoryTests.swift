import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct CRUDRepositoryTests {
    @Test("create POSTs the dictionary as JSON and returns the server's entity")
    func createDictionary() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            // When
            let created = try await messages.create(["text": "Here goes a message"]).value
            // Then
            #expect(created.text == "Here goes a message")
            #expect(created.id == "1")
            let request = try #require(server.requests.last)
            #expect(request.method == "POST")
            #expect(request.path == "/messages")
            #expect(request.header("content-type") == "application/json")
            #expect(request.header("accept") == "application/json")
            #expect(request.json == ["text": "Here goes a message"])
        }
    }

    @Test("create with an entity sends nil attributes as null by default")
    func createEntityNil() async throws {
        try await withStubServer { server in
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let created = try await messages.create(Message(id: "m1", text: "hi", author: nil)).value
            #expect(created == Message(id: "m1", text: "hi", author: nil))
            #expect(server.requests.last?.json == ["id": "m1", "text": "hi", "author": nil])
        }
    }

    @Test("the promise chain from the README: create, then read, map, done")
    func promiseChain() async throws {
        try await withStubServer { server in
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let line = try await messages.create(["text": "chained"])
                .then { messages.read($0.id) }
                .map { "read back: \($0.text)" }
                .value
            #expect(line == "read back: chained")
            #expect(server.requests.map(\.method) == ["POST", "GET"])
            #expect(server.requests.last?.path == "/messages/1")
        }
    }

    @Test("readAll encodes the query into the URL, never a body")
    func readAllQuery() async throws {
        try await withStubServer { server in
            server.resource(
                "messages",
                objects: [
                    ["id": "1", "text": "a", "author": "ann"], ["id": "2", "text": "b", "author": "bob"],
                    ["id": "3", "text": "c & d", "author": "ann"],
                ])
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let anns = try await messages.readAll(query: ["author": "ann"]).value
            #expect(anns.map(\.id) == ["1", "3"])
            let request = try #require(server.requests.last)
            #expect(request.method == "GET" && request.path == "/messages")
            #expect(request.query == ["author": "ann"])
            #expect(request.body.isEmpty)
            let tricky = try await messages.readAll(query: ["text": "c & d"]).value
            #expect(tricky.map(\.id) == ["3"])
            #expect(try await messages.readAll().value.count == 3)
        }
    }

    @Test("update PUTs the whole entity to /path/:id")
    func update() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "old", "author": "ann"]])
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            var message = try await messages.read("1").value
            message.text = "edited"
            message.author = nil
            let updated = try await messages.update(message).value
            #expect(updated.text == "edited")
            let request = try #require(server.requests.last)
            #expect(request.method == "PUT" && request.path == "/messages/1")
            #expect(request.json == ["id": "1", "text": "edited", "author": nil])
            #expect(server.objects(in: "messages").first?["text"] == "edited")
        }
    }

    @Test("update accepts an empty 204 answer and returns the entity sent")
    func update204() async throws {
        try await withStubServer { server in
            server.route(.put, "/messages/:id", response: .empty(status: 204))
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let sent = Message(id: "9", text: "x", author: nil)
            let answer = try await messages.update(sent).value
            #expect(answer == sent)
        }
    }

    @Test("delete accepts 200, 202 and 204, with or without a body", arguments: [200, 202, 204])
    func deleteStatuses(status: Int) async throws {
        try await withStubServer { server in
            server.route(
                .delete, "/messages/:id", response: status == 200 ? .json(["ok": true]) : .empty(status: status))
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            try await messages.delete(id: "5").value
            try await messages.delete(Message(id: "6", text: "", author: nil)).value
            #expect(server.requests.map(\.path) == ["/messages/5", "/messages/6"])
            #expect(server.requests.allSatisfy { $0.method == "DELETE" })
        }
    }

    @Test("read of a missing id rejects with .notFound, keeping status and body")
    func notFound() async throws {
        try await withStubServer { server in
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await messages.read("nope").value }
            #expect(error?.code == .notFound)
            #expect(error?.status == 404)
            #expect(error?.responseText?.contains("no messages with id nope") == true)
            #expect(error?.request?.method == "GET")
            #expect(error?.request?.url.hasSuffix("/messages/nope") == true)
        }
    }

    @Test("ids are percent-encoded path components: ../admin stays in the collection")
    func pathTraversal() async throws {
        try await withStubServer { server in
            server.resource("messages")
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            for id in ["../admin", "..", "a/b", "x?y#z", "spa ce"] {
                _ = await messages.read(id).settledResult
                let request = try #require(server.requests.last)
                #expect(request.path.hasPrefix("/messages/"), "\(id) left the collection: \(request.rawPath)")
                #expect(request.rawPath.split(separator: "/").count == 2, "\(id) split into \(request.rawPath)")
            }
            #expect(server.requests.first?.path == "/messages/../admin")
        }
    }

    @Test("Int and UUID ids", arguments: [StubIDStyle.integer])
    func intAndUUIDIds(style: StubIDStyle) async throws {
        try await withStubServer { server in
            server.resource("counters", idStyle: style)
            let uuid = UUID()
            server.resource("devices", objects: [["id": .string(uuid.uuidString), "name": "phone"]])
            let session = NetworkingSession(url: server.url)
            let counter = try await CounterRepository(store: session).create(["count": 3]).value
            #expect(counter == Counter(id: 1, count: 3))
            #expect(try await CounterRepository(store: session).read(1).value.count == 3)
            #expect(server.requests.last?.path == "/counters/1")
            let device = try await DeviceRepository(store: session).read(uuid).value
            #expect(device.name == "phone")
            #expect(server.requests.last?.path == "/devices/\(uuid.uuidString)")
        }
    }

    @Test("hand-mapped entities use their own dictionary mapping (_id)")
    func handMapped() async throws {
        try await withStubServer { server in
            server.route(.post, "/notes") { request, _ in
                var object = request.json?.objectValue ?? [:]
                object["_id"] = "n1"
                return .json(.object(object), status: 201)
            }
            server.route(.get, "/notes/:id") { _, parameters in
                .json(["_id": .string(parameters["id"]!), "body": "hello"])
            }
            let notes = NoteRepository(store: NetworkingSession(url: server.url))
            let created = try await notes.create(Note(id: "", body: "hello")).value
            #expect(created == Note(id: "n1", body: "hello"))
            #expect(server.requests.first?.json == ["_id": "", "body": "hello"])
            #expect(try await notes.read("n1").value == Note(id: "n1", body: "hello"))
        }
    }

    @Test("envelopes, a route override and omitted nil attributes")
    func envelopesAndRoutes() async throws {
        try await withStubServer { server in
            server.route(.get, "/households/42/people", response: .json(["resources": [["id": "p1", "text": "Ann"]]]))
            server.route(.get, "/people/:id", response: .json(["data": ["id": "p1", "text": "Ann"]]))
            server.route(.post, "/people", response: .json(["data": ["id": "p2", "text": "Bob"]], status: 201))
            let people = PeopleRepository(store: NetworkingSession(url: server.url))
            #expect(try await people.readAll().value.map(\.id) == ["p1"])
            #expect(server.requests.last?.path == "/households/42/people")
            #expect(try await people.read("p1").value.text == "Ann")
            _ = try await people.create(Message(id: "p2", text: "Bob", author: nil)).value
            #expect(server.requests.last?.json == ["id": "p2", "text": "Bob"])
        }
    }

    @Test("DictionaryRepository: CRUD with no model type")
    func dictionaryRepository() async throws {
        try await withStubServer { server in
            server.resource("people")
            let people = DictionaryRepository(store: NetworkingSession(url: server.url), path: "people")
            var ann = try await people.create(["name": "Ann"]).value
            #expect(ann["id"] == "1")
            ann["name"] = "Anne"
            #expect(try await people.update(ann).value["name"] == "Anne")
            #expect(try await people.readAll(query: ["name": "Anne"]).value.count == 1)
            try await people.delete(ann).value
            await #expect(throws: DepotError.self) { try await people.read("1").value }
            await #expect { try await people.update(["name": "no id"]).value } throws: {
                ($0 as? DepotError)?.code == .invalidRequest
            }
        }
    }

    @Test("raw request returns JSON, an entity, an array, or Okay")
    func rawRequest() async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.route(.post, "/actions/ping", response: .empty(status: 204))
            let session = NetworkingSession(url: server.url)
            let json = try await session.request(.get, "messages/1").value
            #expect(json == ["id": "1", "text": "a"])
            let entity = try await session.request(.get, "messages/1", as: Message.self).value
            #expect(entity.text == "a")
            let array = try await session.request(.get, "messages", as: [Message].self).value
            #expect(array.count == 1)
            let okay = try await session.request(.post, "actions/ping", body: ["x": 1], as: Okay.self).value
            #expect(okay.status == 204)
            #expect(server.requests.last?.json == ["x": 1])
        }
    }
}
