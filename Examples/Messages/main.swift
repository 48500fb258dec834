import Depot
import DepotTesting
import Foundation

// The Messages example: CRUD over HTTP against the embedded stub server, chained with promises
// and awaited with async/await.

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var author: String?
}

struct MessageRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
}

let server = try await StubServer.start()
server.resource("messages", objects: [["id": "1", "text": "Welcome", "author": "ann"]])
print("stub server on \(server.url)")

let session = NetworkingSession(url: server.url)
let messages = MessageRepository(store: session)

// Promise chaining: create, then read back.
let readBack = try await messages.create(["text": "Here goes a message", "author": "bob"])
    .get { print("created   #\($0.id): \($0.text)") }
    .then { messages.read($0.id) }
    .map { "read back #\($0.id): \($0.text)" }
    .value
print(readBack)

// async/await: filter, list, update, delete.
let anns = try await messages.readAll(query: ["author": "ann"]).value
print("by ann:    \(anns.map(\.text))")
let all = try await messages.readAll().value
print("all:       \(all.map(\.text))")
var first = all[0]
first.text = "edited"
let updated = try await messages.update(first).value
print("updated   #\(updated.id): \(updated.text)")
try await messages.delete(first).value
print("deleted   #\(first.id)")

// A failure: the deleted message is gone, and the error says so with a typed code.
do {
    _ = try await messages.read(first.id).value
    print("unexpected: the deleted message was found")
    exit(1)
} catch let error as DepotError where error.code == .notFound {
    print("read #\(first.id) again: \(error.code), status \(error.status.map(String.init) ?? "none")")
}

// A server that answers garbage: a typed decoding error, no crash.
server.inject(.malformedJSON)
do {
    _ = try await messages.read("2").value
} catch let error as DepotError {
    print("malformed answer: \(error.code)")
}

try await server.shutdown()
print("done")
