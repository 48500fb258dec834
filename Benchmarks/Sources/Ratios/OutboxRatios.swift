import Depot
import DepotAsyncHTTPClient
import DepotSQLite
import DepotTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Outbox forwarding: 10,000 local writes recorded (Strategy: local target, no synchronize), then
// Forwarder.flush() until the outbox is empty, against the same 10,000 requests sent directly by a
// remote-first repository, sequentially, through the same session, in the same run. Creates (POST)
// and then updates (PUT with If-Match) of the same entities; a real SQLite file per side.

/// A networking + storage repository of messages at a path and under a strategy chosen at run time.
struct CachedMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path: String
    let strategy: Strategy
}

/// Local writes stored and recorded in the outbox, never sent by the write itself.
let localOnly = Strategy(Rule(target: .local, synchronize: false))

/// What one forwarding run measured, in seconds.
struct ForwardingTimes {
    var directCreate = 0.0
    var recordCreate = 0.0
    var flushCreate = 0.0
    var directUpdate = 0.0
    var recordUpdate = 0.0
    var flushUpdate = 0.0
}

@MainActor func outboxRatios() async throws {
    let count = 10_000
    print(
        "== Outbox forwarding: \(count) writes recorded locally, then Forwarder.flush() until empty, vs the same requests sent directly by the repository (stub server on loopback, SQLite files, sequential)"
    )
    let transports: [(name: String, make: (URL) -> any Networking)] = [
        ("URLSession", { NetworkingSession(url: $0, configuration: SessionConfiguration(timeout: .seconds(30))) }),
        (
            "AsyncHTTPClient",
            { AsyncHTTPClientSession(url: $0, configuration: SessionConfiguration(timeout: .seconds(30))) }
        ),
    ]
    for transport in transports {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "depot-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await StubServer.start()
        do {
            let session = transport.make(server.url)
            _ = try await forwardingRun(
                count: 300, name: "warm", session: session, server: server, directory: directory)
            let times = try await forwardingRun(
                count: count, name: "run", session: session, server: server, directory: directory)
            print("-- \(transport.name)")
            writesRow("repo.create, remote-first: POST each (baseline)", times.directCreate, count, times.directCreate)
            writesRow("Forwarder.flush(): POST each", times.flushCreate, count, times.directCreate)
            writesRow(
                "  local creates recorded before it (not in flush)", times.recordCreate, count, times.directCreate)
            writesRow("  record + flush", times.recordCreate + times.flushCreate, count, times.directCreate)
            writesRow("repo.update, remote-first: PUT each (baseline)", times.directUpdate, count, times.directUpdate)
            writesRow("Forwarder.flush(): PUT each", times.flushUpdate, count, times.directUpdate)
            writesRow(
                "  local updates recorded before it (not in flush)", times.recordUpdate, count, times.directUpdate)
            writesRow("  record + flush", times.recordUpdate + times.flushUpdate, count, times.directUpdate)
            let ratio = (times.flushCreate + times.flushUpdate) / (times.directCreate + times.directUpdate)
            print(
                String(
                    format: "forwarding vs direct on %@, creates and updates together: %.2fx (target 1.5x: %@)",
                    transport.name, ratio, ratio <= 1.5 ? "met" : "missed"))
        }
        try await server.shutdown()
    }
}

/// One ms, writes/s and ratio line.
func writesRow(_ name: String, _ seconds: Double, _ writes: Int, _ baseline: Double) {
    print(
        name.padding(toLength: 52, withPad: " ", startingAt: 0),
        String(format: "%8.0f ms %8.0f writes/s   %5.2fx", seconds * 1e3, Double(writes) / seconds, seconds / baseline)
    )
}

/// Creates then updates `count` messages both ways, each side with its own SQLite file and stub
/// resource (`<name>-direct`, `<name>-outbox`).
@MainActor func forwardingRun(
    count: Int, name: String, session: any Networking, server: StubServer, directory: URL
) async throws -> ForwardingTimes {
    let messages = (0..<count).map { Message(id: String(format: "%05d", $0), text: "message number \($0)") }
    let edited = messages.map { Message(id: $0.id, text: "edited \($0.text)") }
    server.resource("\(name)-direct")
    server.resource("\(name)-outbox")
    let direct = CachedMessages(
        store: session,
        storage: try SQLiteStorage(path: directory.appendingPathComponent("\(name)-direct.sqlite").path),
        path: "\(name)-direct", strategy: .remoteFirst)
    let offline = CachedMessages(
        store: session,
        storage: try SQLiteStorage(path: directory.appendingPathComponent("\(name)-outbox.sqlite").path),
        path: "\(name)-outbox", strategy: localOnly)
    let forwarder = Forwarder(for: offline)
    var times = ForwardingTimes()

    times.directCreate = try await time {
        for message in messages {
            let answer = try await direct.create(message).value
            precondition(answer.origin == .remote, "a direct create fell back: \(answer.fallbackError as Any)")
        }
    }.seconds
    times.recordCreate = try await time {
        for message in messages { _ = try await offline.create(message).value }
    }.seconds
    times.flushCreate = try await time { try await flushAll(forwarder, expecting: count) }.seconds
    let leftCreates = await forwarder.pendingCount
    precondition(leftCreates == 0, "\(leftCreates) entries left after the creates")

    times.directUpdate = try await time {
        for message in edited {
            let answer = try await direct.update(message).value
            precondition(answer.origin == .remote, "a direct update fell back: \(answer.fallbackError as Any)")
        }
    }.seconds
    times.recordUpdate = try await time {
        for message in edited { _ = try await offline.update(message).value }
    }.seconds
    times.flushUpdate = try await time { try await flushAll(forwarder, expecting: count) }.seconds
    let leftUpdates = await forwarder.pendingCount
    precondition(leftUpdates == 0, "\(leftUpdates) entries left after the updates")

    // Both sides did the same to the server.
    for side in ["direct", "outbox"] {
        let objects = server.objects(in: "\(name)-\(side)")
        precondition(objects.count == count, "\(side): \(objects.count) objects on the server")
        precondition(objects.allSatisfy { $0["text"]?.stringValue?.hasPrefix("edited") == true }, "\(side): not edited")
    }
    let keyed = server.requests.filter { $0.path.hasPrefix("/\(name)-outbox") && $0.header("Idempotency-Key") != nil }
    precondition(keyed.count == 2 * count, "\(keyed.count) forwarded requests carried an Idempotency-Key")
    server.clearRequests()
    return times
}

/// Flushes until `count` entries are delivered; every entry must go through at its first try.
@MainActor func flushAll(_ forwarder: Forwarder, expecting count: Int) async throws {
    var delivered = 0
    for _ in 0..<3 where delivered < count {
        let report = try await forwarder.flush().value
        precondition(report.errors.isEmpty && report.rejected.isEmpty, "flush failed: \(report.errors.first as Any)")
        delivered += report.delivered
    }
    precondition(delivered == count, "delivered \(delivered) of \(count)")
}

// The cost of recording an entry: N transactions each upserting one record, with and without
// `recordOutbox` in the same transaction, on a SQLite file and in memory; then the repository's
// local write (local target, no synchronize: record + outbox entry) against StorageRepository's
// (record alone).

/// Messages in a local store alone: no outbox.
struct LocalMessages: StorageRepository {
    typealias Entity = Message
    let storage: Storage
    let collection: String
}

@MainActor func outboxRecordRatios() async throws {
    let count = 10_000
    let rounds = 5
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-record-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let stores: [(name: String, make: (String) throws -> any Storage)] = [
        ("SQLiteStorage (file)", { try SQLiteStorage(path: directory.appendingPathComponent("\($0).sqlite").path) }),
        ("InMemoryStorage", { _ in InMemoryStorage() }),
    ].filter {
        // DEPOT_RATIOS_STORE=memory (or sqlite) measures one store alone (for a profile).
        guard let only = ProcessInfo.processInfo.environment["DEPOT_RATIOS_STORE"] else { return true }
        return $0.name.lowercased().contains(only.lowercased())
    }
    func records(_ prefix: String, text: String = "message") throws -> [StoredRecord] {
        try (0..<count).map {
            let message = Message(id: "\(prefix)-\($0)", text: "\(text) number \($0)")
            return StoredRecord(
                collection: "messages", id: message.id, object: try JSONMapping.object(message), syncState: .created)
        }
    }

    print(
        "== Outbox recording: \(count) transactions of one upsert, without and with tx.recordOutbox; median of \(rounds) alternating rounds"
    )
    for store in stores {
        let storage = try store.make("transactions")
        let samples = try await alternating(
            rounds,
            [
                { round in
                    let batch = try records("plain\(round)")
                    return try await time {
                        for record in batch { try await storage.transaction { tx in try tx.upsert(record) } }
                    }
                },
                { round in
                    let batch = try records("outbox\(round)")
                    return try await time {
                        for record in batch {
                            try await storage.transaction { tx in
                                try tx.upsert(record)
                                try tx.recordOutbox(
                                    collection: record.collection, entityID: record.id, operation: .create,
                                    payload: .object(record.object))
                            }
                        }
                    }
                },
                { round in
                    // The same entities again: each update folds into the entity's pending create.
                    let batch = try records("outbox\(round)", text: "edited")
                    return try await time {
                        for record in batch {
                            try await storage.transaction { tx in
                                try tx.upsert(record)
                                try tx.recordOutbox(
                                    collection: record.collection, entityID: record.id, operation: .update,
                                    payload: .object(record.object))
                            }
                        }
                    }
                },
            ])
        print("-- \(store.name)")
        row("tx.upsert (baseline)", samples[0], per: count, baseline: samples[0])
        row("tx.upsert + recordOutbox, new entry", samples[1], per: count, baseline: samples[0])
        row("tx.upsert + recordOutbox, folded into pending", samples[2], per: count, baseline: samples[0])
    }

    print(
        "== Local write through a repository: StorageRepository (no outbox) vs CRUDNetworkingStorageRepository, local target, no synchronize (record + outbox entry); \(count) each, median of \(rounds) rounds"
    )
    let unused = NetworkingSession(url: URL(string: "http://127.0.0.1:9")!)  // never called: nothing is sent
    for store in stores {
        let storage = try store.make("repositories")
        let plain = LocalMessages(storage: storage, collection: "plain")
        let cached = CachedMessages(store: unused, storage: storage, path: "cached", strategy: localOnly)
        func messages(_ round: Int, _ text: String) -> [Message] {
            (0..<count).map { Message(id: "\(round)-\($0)", text: "\(text) number \($0)") }
        }
        let samples = try await alternatingWithCPU(
            rounds,
            [
                { round in
                    let batch = messages(round, "message")
                    return try await time { for message in batch { _ = try await plain.create(message).value } }
                },
                { round in
                    let batch = messages(round, "message")
                    return try await time { for message in batch { _ = try await cached.create(message).value } }
                },
                { round in
                    let batch = messages(round, "edited")
                    return try await time { for message in batch { _ = try await plain.update(message).value } }
                },
                { round in
                    let batch = messages(round, "edited")
                    return try await time { for message in batch { _ = try await cached.update(message).value } }
                },
            ])
        let entries = try await storage.outboxCount(OutboxQuery())
        precondition(entries == rounds * count, "\(entries) outbox entries")
        print("-- \(store.name) (wall clock, and the process's CPU time, user + system, every thread)")
        cpuRow("StorageRepository.create (baseline)", samples[0], per: count, baseline: samples[0])
        cpuRow("local-only create + outbox entry", samples[1], per: count, baseline: samples[0])
        cpuRow("StorageRepository.update (baseline)", samples[2], per: count, baseline: samples[2])
        cpuRow("local-only update, folded into the pending create", samples[3], per: count, baseline: samples[2])
    }
}

/// ``alternating(_:_:)`` that also measures the process's CPU time (user + system, every thread)
/// over each body's run: each body's median wall-clock time and median CPU time, in seconds.
@MainActor func alternatingWithCPU(
    _ rounds: Int, _ bodies: [(Int) async throws -> Duration]
) async throws -> [(wall: Double, cpu: Double)] {
    var walls = Array(repeating: [Double](), count: bodies.count)
    var cpus = Array(repeating: [Double](), count: bodies.count)
    for round in 0..<rounds {
        for (index, body) in bodies.enumerated() {
            let start = processCPUSeconds()
            walls[index].append(try await body(round).seconds)
            cpus[index].append(processCPUSeconds() - start)
        }
    }
    return (0..<bodies.count).map { (walls[$0].sorted()[rounds / 2], cpus[$0].sorted()[rounds / 2]) }
}

/// Runs each body once per round, in turn, and returns each body's median time in seconds.
@MainActor func alternating(_ rounds: Int, _ bodies: [(Int) async throws -> Duration]) async throws -> [Double] {
    var samples = Array(repeating: [Double](), count: bodies.count)
    for round in 0..<rounds {
        for (index, body) in bodies.enumerated() { samples[index].append(try await body(round).seconds) }
    }
    return samples.map { $0.sorted()[rounds / 2] }
}
