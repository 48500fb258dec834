import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Logging

// The Messages example: CRUD over HTTP against the embedded stub server, chained with promises
// and awaited with async/await.

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
    var author: String?
}

struct MessageRepository: PatchableRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    let snapshots = SnapshotCache()  // the server's last answer per id: what PATCH diffs against
}

/// The same collection with a local copy in SQLite: server first, the local copy when it is gone.
struct CachedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy { .remoteFirst }
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(batchSize: 100, pagination: .pageQuery(page: "_page", limit: "_limit", size: 500))
    }
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
var patched = updated
patched.text = "patched"
let afterPatch = try await messages.patch(patched).value  // PATCH /messages/1 {"text":"patched"}
let patchBody = server.requests.last.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
print("patched   #\(afterPatch.id): \(afterPatch.text), sent \(patchBody)")
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

// A local copy: reads refresh it while the server is up, and answer from it while it is down.
let file = FileManager.default.temporaryDirectory.appendingPathComponent("messages-example-\(UUID().uuidString).sqlite")
defer { try? FileManager.default.removeItem(at: file) }
let cached = CachedMessages(store: session, storage: try SQLiteStorage(path: file.path))
let online = try await cached.readAll().value
print("online:    \(online.value.count) messages from the \(online.origin) side, stored in \(file.lastPathComponent)")
try await server.goOffline()
let offline = try await cached.readAll().value
print(
    "offline:   \(offline.value.map(\.text)) from the \(offline.origin) side (\(offline.fallbackError?.code.name ?? "no error"))"
)
let note = try await cached.create(Message(id: "offline-1", text: "written offline")).value
print("offline:   created #\(note.value.id) on the \(note.origin) side, recorded in the outbox")
_ = try await cached.update(Message(id: "offline-1", text: "written offline, then edited")).value
_ = try await cached.create(Message(id: "offline-2", text: "a second note")).value
_ = try await cached.delete(id: "offline-2").value  // created and deleted offline: nothing to send

// Store-and-forward: the outbox drains once the server is back, each write sent once, in order.
let forwarder = Forwarder(for: cached)
print("outbox:    \(await forwarder.pendingCount) pending while offline")
try await server.goOnline()
let events = forwarder.events  // subscribe before starting: every event from now on
forwarder.start()
let drained = try await forwarder.flush().value
var shown = 0
for await event in events {
    switch event {
    case .delivered(let entry):
        print("forwarded: \(entry.operation) #\(entry.entityID) (key \(entry.idempotencyKey.prefix(8))…)")
    case .retrying(let entry, let error): print("retrying:  #\(entry.entityID): \(error.code)")
    case .rejected(let entry): print("rejected:  #\(entry.entityID): \(entry.rejection?.message ?? "")")
    case .conflict(let entry, let resolution): print("conflict:  #\(entry.entityID): \(resolution)")
    case .held(let entry): print("held:      #\(entry.entityID): written as \(entry.account ?? "nobody")")
    }
    shown += 1
    if shown == drained.delivered + drained.retrying + drained.rejected.count { break }
}
await forwarder.stop()
print(
    "outbox:    \(await forwarder.pendingCount) pending; the server has \(server.objects(in: "messages").count) messages"
)
let back = try await cached.read("offline-1").value
print("online:    read #offline-1 from the \(back.origin) side: \(back.value.text)")

// Actions: the synchronization runs as a cancellable, observable action with statistics.
let executor = ActionExecutor(
    maxConcurrent: 2, logger: Logger(label: "messages.actions") { _ in SwiftLogNoOpLogHandler() })
let actionEvents = executor.events
try await server.goOffline()
_ = try await cached.update(Message(id: "offline-1", text: "edited once more, offline")).value
try await server.goOnline()
let sync = executor.execute(SynchronizeAction(cached))
let report = try await sync.result.value
print(
    "synchronized: pushed \(report.pushed), pulled \(report.pulled), deleted \(report.deleted), failed \(report.failed)"
)
let stats = sync.statistics
print(
    "action:    \(sync.name) \(sync.state) in \(stats.duration.map { "\($0)" } ?? "?"): "
        + "\(stats.requests) requests, \(stats.bytes) bytes, pushed \(stats.pushed), pulled \(stats.pulled)"
)
await executor.shutdown()
print("events:    \(await actionEvents.reduce(into: [String]()) { $0.append($1.kind.name) }.joined(separator: " → "))")

// AutoSync: the synchronization runs by itself: at start, after offline writes (debounced), after
// failures (backing off), and at once when the forwarder delivers again after an outage.
func runAutoSync(_ cached: CachedMessages, _ server: StubServer) async throws {
    let auto = AutoSync(
        executor: ActionExecutor(maxConcurrent: 2), every: .seconds(300),
        configuration: AutoSyncConfiguration(
            baseDelay: .milliseconds(100), maximumDelay: .seconds(1), debounce: .milliseconds(100)))
    auto.add(SynchronizeAction(cached))
    let background = Forwarder(
        for: cached,
        configuration: ForwarderConfiguration(
            baseDelay: .milliseconds(50), maximumDelay: .milliseconds(200), pollInterval: .milliseconds(50)))
    auto.observe(background)
    var autoRuns = AutoSyncRuns(auto)
    auto.start()
    background.start()
    func show(_ run: AutoSyncRuns.Run?) {
        guard let run else { return }
        print("autosync:  ran for \(run.trigger)" + (run.failure.map { ", failed: \($0.code)" } ?? ", ok"))
    }
    show(await autoRuns.next())  // at start
    try await server.goOffline()
    _ = try await cached.create(Message(id: "auto-1", text: "written offline while AutoSync runs")).value
    show(await autoRuns.next())  // the offline write, 100 ms later: the server is gone
    try await server.goOnline()
    // Retries back off until one gets through, or the forwarder delivers again first, which runs it
    // at once (`.connectionRestored`): whichever comes first, the first run that succeeds ends it.
    for _ in 0..<10 {
        guard let run = await autoRuns.next() else { break }
        show(run)
        if run.failure == nil { break }
    }
    await auto.stop()
    await background.stop()
}
try await runAutoSync(cached, server)

try await server.shutdown()
print("done")
