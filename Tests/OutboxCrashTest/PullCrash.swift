import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// The pulled collection: notes on the stub's `pulled` resource, read 50 a page through `Link`
/// headers, incrementally by `updated_at` with flagged deletions; a full pull prunes what the
/// server no longer lists.
struct PulledNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Note
    /// The session to the stub server.
    let store: Networking
    /// The SQLite file shared by the parent and its children.
    let storage: Storage
    /// The collection's path.
    let path = "pulled"
    /// Pages of 50, the cursor from `updated_at`, deletions flagged.
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(
            pagination: .linkHeader, prune: true, query: ["_limit": "50"], push: false,
            incremental: IncrementalPull(
                parameter: "updated_after", cursor: .maximum(of: "updated_at"), deletions: .flag("deleted")))
    }
}

/// The pulling child: one `synchronize()` of ``PulledNotes``, printing `page N` after each page is
/// stored, then `done full` or `done incremental` (the parent kills it in between).
enum PullChild {
    /// Pulls once; returns 0 when the pull completed.
    static func run(_ arguments: Arguments) async -> Int32 {
        do {
            let storage = try SQLiteStorage(path: arguments.database)
            defer { try? storage.close() }
            let notes = PulledNotes(
                store: NetworkingSession(
                    url: URL(string: "http://127.0.0.1:\(arguments.port)")!,
                    configuration: SessionConfiguration(timeout: .seconds(5))),
                storage: storage)
            let report = try await notes.synchronize { progress in say("page \(progress.pages)") }.value
            guard report.pullCompleted, report.errors.isEmpty else {
                complain("pull child: incomplete pull: \(report.errors)")
                return 4
            }
            say(report.incremental ? "done incremental" : "done full")
            return 0
        } catch {
            complain("pull child: \(error)")
            return 4
        }
    }
}

/// Pulls killed between pages: each round kills a child mid-pull (a full pull in the first half of
/// the round, an incremental one in the second), changes the server meanwhile, restarts a child
/// that completes, and checks the store holds exactly the server's notes — nothing a killed pull
/// skipped is ever missed, because its cursor was never stored.
struct PullCrashTest {
    /// This executable, started again with `--pull-child`.
    let executable: String
    /// Chooses changes and kill moments.
    var random: SeededGenerator

    /// Runs `rounds` rounds; prints a line each and returns whether all passed.
    mutating func run(rounds: Int) async -> Bool {
        for number in 1...max(rounds, 1) {
            do {
                let line = try await round()
                say("pull round \(number): \(line)")
            } catch {
                complain("pull round \(number): \(error)")
                complain("FAILED in pull round \(number)")
                return false
            }
        }
        return true
    }

    /// One round on a fresh server of 1,000 notes and a fresh SQLite file.
    private mutating func round() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PullCrash-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("pull.sqlite").path
        let server = try await StubServer.start()
        do {
            server.resource(
                "pulled",
                objects: (0..<1_000).map { ["id": .string("n\($0)"), "text": "first", "revision": 0] })
            server.trackChanges(for: "pulled")
            let session = NetworkingSession(url: server.url)
            // Changes first, so the list's order (by id) is not the order of `updated_at`: a
            // cursor stored before the end of a full pull would skip the pages not yet read.
            try await change(server, session, updates: 100, deletes: 0, creates: 0)
            // A full pull killed mid-way, changes, a full pull to the end.
            let firstKill = try await killMidPull(server, database)
            try await change(server, session, updates: 40, deletes: 10, creates: 10)
            let full = try await pullToTheEnd(server, database)
            try await check(server, database, after: full)
            // An incremental pull of 300 changes (6 pages) killed mid-way, more changes, one to the end.
            try await change(server, session, updates: 300, deletes: 0, creates: 0)
            let secondKill = try await killMidPull(server, database)
            try await change(server, session, updates: 30, deletes: 10, creates: 10)
            let incremental = try await pullToTheEnd(server, database)
            guard incremental == "done incremental" else {
                throw HarnessError(description: "the last pull was not incremental: \(incremental)")
            }
            try await check(server, database, after: incremental)
            try await server.shutdown()
            return "full pull killed after \(firstKill), incremental pull killed after \(secondKill): store = server"
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// Starts a pulling child and kills it once it has stored a random number of pages (1 to 3);
    /// returns how far it got.
    private mutating func killMidPull(_ server: StubServer, _ database: String) async throws -> String {
        let pages = Int.random(in: 1...3, using: &random)
        // Every list request waits 40 ms, so the kill lands between pages, not after the last.
        server.inject(.delay(.milliseconds(40)), times: 1_000, pathPrefix: "/pulled")
        defer { server.clearFaults() }
        let child = try ChildProcess(
            executable: executable, arguments: ["--pull-child", "--port", String(server.port), "--db", database])
        guard try await child.waitFor(line: "page \(pages)", timeout: .seconds(30)) else {
            child.kill()
            throw HarnessError(description: "the pulling child never stored page \(pages): \(child.ending)")
        }
        child.kill()
        let ending = try await child.waitForEnd(timeout: .seconds(10))
        let stored = child.lines.filter { $0.hasPrefix("page ") }.count
        // On a machine too loaded for the kill to land in time, the pull may end first: the round
        // still checks the store, and says so.
        if ending == .exited(0), child.lines.contains(where: { $0.hasPrefix("done") }) {
            return "nothing (it ended first, after \(stored) pages)"
        }
        guard ending == .signalled(SIGKILL) else { throw HarnessError(description: "the child ended \(ending)") }
        return "\(stored) pages"
    }

    /// Runs a pulling child to its end; returns its last line.
    private func pullToTheEnd(_ server: StubServer, _ database: String) async throws -> String {
        let child = try ChildProcess(
            executable: executable, arguments: ["--pull-child", "--port", String(server.port), "--db", database])
        let ending = try await child.waitForEnd(timeout: .seconds(60))
        guard ending == .exited(0), let last = child.lines.last, last.hasPrefix("done") else {
            if ending == .running { child.kill() }
            throw HarnessError(description: "the restarted pull failed: \(ending), \(child.lines.suffix(2))")
        }
        return last
    }

    /// Updates, deletes and creates notes on the server, at random.
    private mutating func change(
        _ server: StubServer, _ session: NetworkingSession, updates: Int, deletes: Int, creates: Int
    ) async throws {
        var ids = server.objects(in: "pulled").compactMap { $0["id"]?.stringValue }
        ids.shuffle(using: &random)
        for id in ids.prefix(updates) {
            _ = try await session.request(
                .patch, "pulled/\(id)", headers: ["Content-Type": "application/merge-patch+json"],
                body: ["text": .string("changed \(UInt32.random(in: 0...UInt32.max, using: &random))")]
            ).value
        }
        for id in ids.dropFirst(updates).prefix(deletes) {
            _ = try await session.request(.delete, "pulled/\(id)").value
        }
        for _ in 0..<creates {
            let id = "c\(UInt64.random(in: 0...UInt64.max, using: &random))"
            _ = try await session.request(
                .post, "pulled", body: ["id": .string(id), "text": "created", "revision": 0]
            ).value
        }
    }

    /// The store holds exactly the server's notes, all synced.
    private func check(_ server: StubServer, _ database: String, after pull: String) async throws {
        let storage = try SQLiteStorage(path: database)
        defer { try? storage.close() }
        let local = try await storage.fetch(
            collection: "pulled", syncStates: Set(SyncState.allCases), after: nil, limit: 100_000
        )
        var expected: [String: String] = [:]
        for object in server.objects(in: "pulled") {
            if let id = object["id"]?.stringValue { expected[id] = object["text"]?.stringValue }
        }
        var found: [String: String] = [:]
        for record in local where record.syncState == .synced { found[record.id] = record.object["text"]?.stringValue }
        guard found == expected, local.count == expected.count else {
            let missing = Set(expected.keys).subtracting(found.keys).sorted().prefix(5)
            let extra = Set(found.keys).subtracting(expected.keys).sorted().prefix(5)
            let stale = expected.keys.filter { found[$0] != nil && found[$0] != expected[$0] }.sorted().prefix(5)
            throw HarnessError(
                description: "after \(pull): the store does not match the server: "
                    + "missing \(Array(missing)), extra \(Array(extra)), stale \(Array(stale)) "
                    + "(\(local.count) local, \(expected.count) on the server)")
        }
    }
}
