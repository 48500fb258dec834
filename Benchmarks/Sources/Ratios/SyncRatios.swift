import Depot
import DepotSQLite
import DepotTesting
import Foundation

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
                ).value
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
        ).value
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

@MainActor func syncPullRatios(prune: Bool = false) async throws {
    let count = 1_000_000
    let size = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-pull-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    print(
        "== Sync pull: \(count) entities in pages of \(size) into SQLite\(prune ? ", prune on" : ""), time and peak resident memory"
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
        let session = NetworkingSession(url: server.url, configuration: SessionConfiguration(timeout: .seconds(60)))
        let storage = try SQLiteStorage(path: directory.appendingPathComponent("pull.sqlite").path)
        let repository = SyncedMessages(
            store: session, storage: storage, path: "messages",
            synchronization: SynchronizationConfiguration(
                pagination: .pageQuery(page: "_page", limit: "_limit", size: size), prune: prune))
        var report = SynchronizationReport()
        let elapsed = try await time { report = try await repository.synchronize().value }
        precondition(report.pulled == count && report.pullCompleted, "pull incomplete: \(report.errors.first as Any)")
        let peak = peakResidentMB()
        print(
            String(
                format: "pulled %d entities in %d pages: %.1f s, %.0f entities/s; peak RSS %.0f MB (%.0f MB before)",
                report.pulled, report.pages, elapsed.seconds, Double(count) / elapsed.seconds, peak ?? -1,
                before ?? -1))
    }
    try await server.shutdown()
}

/// A networking repository at a path chosen at run time.
struct MessageRepositoryAt: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path: String
}
