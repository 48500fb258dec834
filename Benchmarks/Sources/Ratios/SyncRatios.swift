import Depot
import DepotSQLite
import DepotTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// synchronize(): 10,000 unsynced entities pushed in batches of 100 against one POST per entity
// (same stub server, same SQLite store), and an incremental pull. The 1,000,000-entity pull is in
// PullRatios, each side in a process of its own.

struct SyncedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path: String
    let synchronization: SynchronizationConfiguration
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
