import Depot
import DepotSQLite
import DepotTesting
import Foundation
import GRDB

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// synchronize(): 10,000 unsynced entities pushed in batches of 100 against one POST per entity
// (same stub server, same SQLite store), and a pull of 1,000,000 entities in pages of 1,000 from
// pages generated on the fly (so the server holds nothing), with the peak resident memory.

struct SyncedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path: String
    let synchronization: SynchronizationConfiguration
}

/// The process's peak resident set (VmHWM) in MB, from /proc; nil where there is none.
func peakResidentMB() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes / 1024
}

@MainActor func syncPushRatios() async throws {
    let count = 10_000
    let batch = 100
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let messages = (0..<count).map { Message(id: String(format: "%06d", $0), text: "message number \($0)") }
    print("== Sync push: \(count) unsynced entities, batches of \(batch) vs one POST per entity (same server, SQLite)")

    let server = try await StubServer.start()
    do {
        server.resource("single")
        server.resource("batched")
        server.route(.get, "/batched", response: .json([]))  // an empty pull: time the push alone
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(30)))

        // Baseline: each entity POSTed on its own, its answer stored synced.
        let single = try SQLiteStorage(path: directory.appendingPathComponent("single.sqlite").path)
        let remote = MessageRepositoryAt(store: session, path: "single")
        server.clearRequests()
        let singleTime = try await time {
            for message in messages {
                let answer = try await remote.create(message).value
                let object = try JSONMapping.object(answer)
                try await single.upsert(
                    StoredRecord(
                        collection: "single", id: answer.id, object: object, syncState: .synced, snapshot: object)
                )
            }
        }
        let singleRequests = server.requests.count

        // synchronize(): the same entities stored unsynced, then pushed in batches.
        let batched = try SQLiteStorage(path: directory.appendingPathComponent("batched.sqlite").path)
        let repository = SyncedMessages(
            store: session, storage: batched, path: "batched",
            synchronization: SynchronizationConfiguration(batchSize: batch))
        try await batched.upsert(
            messages.map {
                StoredRecord(collection: "batched", id: $0.id, object: try JSONMapping.object($0), syncState: .created)
            }
        )
        server.clearRequests()
        var report = SynchronizationReport()
        let batchedTime = try await time { report = try await repository.synchronize().value }
        let batchedRequests = server.requests.count
        precondition(report.pushed == count && report.failed == 0, "push incomplete: \(report.errors.first as Any)")

        row(
            "one POST per entity (\(singleRequests) requests)", singleTime.seconds, per: count,
            baseline: singleTime.seconds)
        row(
            "synchronize(), batches of \(batch) (\(batchedRequests) requests)", batchedTime.seconds, per: count,
            baseline: singleTime.seconds)
        print(
            String(
                format: "requests: %.1fx fewer; time: %.1fx faster", Double(singleRequests) / Double(batchedRequests),
                singleTime.seconds / batchedTime.seconds))
    }
    try await server.shutdown()
}

/// The same pages as Depot's pull, read the plainest way: URLSession, `JSONSerialization`, and one
/// GRDB transaction of `INSERT OR REPLACE` per page into a table of id and JSON text. The floor a
/// pull's ratio is measured against.
func rawPull(url: URL, size: Int, databasePath: String) async throws -> Int {
    let queue = try DatabaseQueue(path: databasePath)
    try await queue.write { db in
        try db.execute(sql: "CREATE TABLE records (id TEXT PRIMARY KEY NOT NULL, object TEXT NOT NULL)")
    }
    let session = URLSession(configuration: .ephemeral)
    var stored = 0
    var page = 1
    while true {
        guard
            var components = URLComponents(url: url.appendingPathComponent("messages"), resolvingAgainstBaseURL: false)
        else { throw DepotError(.invalidRequest, "bad base URL") }
        components.queryItems = [
            URLQueryItem(name: "_page", value: String(page)), URLQueryItem(name: "_limit", value: String(size)),
        ]
        guard let pageURL = components.url else { throw DepotError(.invalidRequest, "bad page URL") }
        let (data, _) = try await session.data(for: URLRequest(url: pageURL))
        guard let objects = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw DepotError(.decoding, "page \(page) is not an array of objects")
        }
        if objects.isEmpty { break }
        let rows: [(String, String)] = try objects.map { object in
            guard let id = object["id"] as? String else { throw DepotError(.decoding, "an object without an id") }
            let text = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return (id, String(decoding: text, as: UTF8.self))
        }
        try await queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO records (id, object) VALUES (?, ?)")
            for (id, text) in rows { try insert.execute(arguments: [id, text]) }
        }
        stored += rows.count
        page += 1
    }
    return stored
}

@MainActor func syncPullRatios(prune: Bool = false, count: Int = 1_000_000) async throws {
    let size = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-pull-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    print(
        "== Sync pull: \(count) entities in pages of \(size) into SQLite\(prune ? ", prune on" : ""), against "
            + "URLSession + JSONSerialization + GRDB (same pages, same run); time and peak resident memory"
    )
    let before = peakResidentMB()

    let server = try await StubServer.start()
    do {
        // Pages made on request, so the server's memory stays flat and the peak is the client's.
        server.route(.get, "/messages") { request, _ in
            let page = Int(request.query["_page"] ?? "1") ?? 1
            let start = (page - 1) * size
            let end = min(start + size, count)
            guard start < end else { return .json([]) }
            return .json(
                .array(
                    (start..<end).map {
                        .object(["id": .string(String(format: "%07d", $0)), "text": .string("message number \($0)")])
                    }))
        }
        server.clearRequests()
        var rawCount = 0
        let rawTime = try await time {
            rawCount = try await rawPull(
                url: server.url, size: size, databasePath: directory.appendingPathComponent("raw.sqlite").path)
        }
        precondition(rawCount == count, "raw pull incomplete: \(rawCount)")
        let rawRequests = server.requests.count
        let rawPeak = peakResidentMB()

        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(60)))
        let storage = try SQLiteStorage(path: directory.appendingPathComponent("pull.sqlite").path)
        let repository = SyncedMessages(
            store: session, storage: storage, path: "messages",
            synchronization: SynchronizationConfiguration(
                pagination: .pageQuery(page: "_page", limit: "_limit", size: size), prune: prune))
        var report = SynchronizationReport()
        server.clearRequests()
        let elapsed = try await time { report = try await repository.synchronize().value }
        precondition(report.pulled == count && report.pullCompleted, "pull incomplete: \(report.errors.first as Any)")
        let requests = server.requests.count
        let peak = peakResidentMB()
        row(
            "raw: URLSession + JSONSerialization + GRDB (\(rawRequests) req)", rawTime.seconds, per: count,
            baseline: rawTime.seconds)
        row("synchronize() pull (\(requests) requests)", elapsed.seconds, per: count, baseline: rawTime.seconds)
        print(
            String(
                format: "pulled %d entities in %d pages: %.1f s (raw %.1f s), %.0f entities/s; "
                    + "peak RSS %.0f MB (%.0f MB before, %.0f MB after the raw pull)",
                report.pulled, report.pages, elapsed.seconds, rawTime.seconds, Double(count) / elapsed.seconds,
                peak ?? -1, before ?? -1, rawPeak ?? -1))
    }
    try await server.shutdown()
}

/// An incremental pull against a full one: a 100,000-entity collection on a stub resource that
/// tracks changes, pulled whole, then 100 entities changed and 10 deleted on the server, then
/// pulled again with `updated_after`.
@MainActor func syncIncrementalRatios(count: Int = 100_000) async throws {
    let size = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-inc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    print("== Incremental pull: \(count) entities, 100 changed and 10 deleted on the server, against a full pull")
    let server = try await StubServer.start()
    do {
        server.resource(
            "messages",
            objects: (0..<count).map { ["id": .string(String(format: "%07d", $0)), "text": .string("message \($0)")] })
        server.trackChanges(for: "messages")
        server.setPaging(maximumSize: size, for: "messages")
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(60)))
        let storage = try SQLiteStorage(path: directory.appendingPathComponent("inc.sqlite").path)
        let repository = SyncedMessages(
            store: session, storage: storage, path: "messages",
            synchronization: SynchronizationConfiguration(
                pagination: .linkHeader, query: ["_limit": String(size)],
                incremental: IncrementalPull(
                    parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted"))))
        server.clearRequests()
        var full = SynchronizationReport()
        let fullTime = try await time { full = try await repository.synchronize().value }
        precondition(full.pulled == count && full.pullCompleted, "full pull incomplete: \(full.errors.first as Any)")
        let fullRequests = server.requests.count

        for index in stride(from: 0, to: count, by: count / 100).prefix(100) {
            let id = String(format: "%07d", index)
            _ = try await session.request(.put, "messages/\(id)", body: ["id": .string(id), "text": "changed"]).value
        }
        for index in stride(from: 7, to: count, by: count / 10).prefix(10) {
            _ = try await session.request(.delete, "messages/\(String(format: "%07d", index))").value
        }
        server.clearRequests()
        var incremental = SynchronizationReport()
        let incrementalTime = try await time { incremental = try await repository.synchronize().value }
        let incrementalRequests = server.requests.count
        let remaining = try await storage.fetch(
            collection: "messages", syncStates: [.synced], after: nil, limit: count + 1
        )
        precondition(
            incremental.incremental && incremental.removed == 10 && remaining.count == count - 10
                && remaining.filter({ $0.object["text"] == "changed" }).count == 100,
            "incremental pull wrong: \(incremental)")
        // The same changes feed read again by a bare GET: the server's and the transport's share.
        let cursor =
            incremental.pulled > 0
            ? try await storage.fetch(collection: "__depot_pull_cursors", matching: Criteria()).first?.object[
                "cursor"] : nil
        var feed = NetworkRequest(method: .get, path: "messages")
        feed.query = [
            URLQueryItem(name: "_limit", value: String(size)),
            URLQueryItem(name: "updated_after", value: cursor?.int64Value.map { String($0) } ?? "0"),
        ]
        let getTime = try await time { _ = try await session.send(feed) }
        row("full pull (\(fullRequests) requests)", fullTime.seconds, per: count, baseline: fullTime.seconds)
        row(
            "incremental pull (\(incrementalRequests) requests, \(incremental.pulled) pulled)",
            incrementalTime.seconds, per: count, baseline: fullTime.seconds)
        print(
            String(
                format: "incremental: %d requests, %.3f s = %.2f%% of the full pull's %.1f s "
                    + "(a bare GET of the changes feed: %.3f s)", incrementalRequests,
                incrementalTime.seconds, incrementalTime.seconds / fullTime.seconds * 100, fullTime.seconds,
                getTime.seconds))
    }
    try await server.shutdown()
}

/// A networking repository at a path chosen at run time.
struct MessageRepositoryAt: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path: String
}
