import Depot
import DepotSQLite
import DepotTesting
import Foundation
import GRDB

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// A pull of 1,000,000 entities in pages of 1,000, generated on the fly by a stub server in this
// process (so the server holds nothing), into SQLite: the raw baseline and Depot's
// `synchronize()`, each in a child process of its own, which reports its time and its peak
// resident size (getrusage's maxrss): the pull's own, not this process's or the other side's.

struct SyncedMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path: String
    let synchronization: SynchronizationConfiguration
}

/// What a child reports on its last line: `RESULT <seconds> <entities> <pages> <peak MB> <CPU seconds>`.
struct PullFigures {
    var seconds: Double
    var entities: Int
    var pages: Int
    var peakMB: Double
    /// The child's user and system CPU time: what the pull costs whatever else the machine runs.
    var cpuSeconds: Double = 0
}

func pullRatios(prune: Bool, count: Int) async throws {
    let size = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-pull-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    print(
        "== Sync pull: \(count) entities in pages of \(size) into SQLite\(prune ? ", prune on" : ""), against "
            + "URLSession + JSONSerialization + GRDB (same pages, same run); each in a process of its own"
    )
    let server = try await StubServer.start()
    do {
        // Pages made on request, so the server's memory stays flat.
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
        let url = server.url.absoluteString
        let raw = try await runChild(["raw", url, String(count), String(size), directory.path])
        let depot = try await runChild(
            ["depot", url, String(count), String(size), directory.path, prune ? "prune" : "keep"])
        precondition(raw.entities == count && depot.entities == count, "a pull was incomplete")
        row("raw: URLSession + JSONSerialization + GRDB", raw.seconds, per: count, baseline: raw.seconds)
        row("synchronize() pull (\(depot.pages) pages)", depot.seconds, per: count, baseline: raw.seconds)
        print(
            String(
                format: "Depot: %.0f entities/s, peak resident %.0f MB; raw: %.0f entities/s, peak resident %.0f MB",
                Double(count) / depot.seconds, depot.peakMB, Double(count) / raw.seconds, raw.peakMB))
        print(
            String(
                format: "CPU time (user + system, the client's process): Depot %.1f s = %.0f entities per CPU "
                    + "second, %.2fx the raw pull's %.1f s", depot.cpuSeconds, Double(count) / depot.cpuSeconds,
                depot.cpuSeconds / raw.cpuSeconds, raw.cpuSeconds))
    }
    try await server.shutdown()
}

/// Runs this executable as `child <arguments>` and reads the figures it prints last.
func runChild(_ arguments: [String]) async throws -> PullFigures {
    let process = Process()
    // PULL_RATIOS_CHILD names another build to run the sides with (an A/B of two commits).
    if let other = ProcessInfo.processInfo.environment["PULL_RATIOS_CHILD"] {
        process.executableURL = URL(fileURLWithPath: other)
    } else {
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }
    process.arguments = ["child"] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0,
        let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") })
    else { throw DepotError(.decoding, "the \(arguments[0]) pull failed: \(text)") }
    let fields = line.split(separator: " ").dropFirst().map(String.init)
    guard fields.count >= 4, let seconds = Double(fields[0]), let entities = Int(fields[1]),
        let pages = Int(fields[2]), let peak = Double(fields[3])
    else { throw DepotError(.decoding, "unreadable child answer: \(line)") }
    let cpu = fields.count > 4 ? Double(fields[4]) ?? .nan : .nan  // a build from before CPU times
    return PullFigures(seconds: seconds, entities: entities, pages: pages, peakMB: peak, cpuSeconds: cpu)
}

/// A child's side of the pull: `raw|depot URL COUNT SIZE DIRECTORY [prune|keep]`. Returns the
/// exit status.
func runPullChild(_ arguments: [String]) async -> Int32 {
    guard arguments.count >= 5, let url = URL(string: arguments[1]), let size = Int(arguments[3])
    else {
        print("usage: PullRatios child raw|depot URL COUNT SIZE DIRECTORY [prune|keep]")
        return 2
    }
    let directory = URL(fileURLWithPath: arguments[4])
    do {
        var figures: PullFigures
        if arguments[0] == "raw" {
            var stored = 0
            let elapsed = try await time {
                stored = try await rawPull(
                    url: url, size: size, databasePath: directory.appendingPathComponent("raw.sqlite").path)
            }
            figures = PullFigures(seconds: elapsed.seconds, entities: stored, pages: 0, peakMB: 0)
        } else {
            let session = NetworkingSession(url: url, configuration: SessionConfiguration(timeout: .seconds(60)))
            let storage = try SQLiteStorage(path: directory.appendingPathComponent("pull.sqlite").path)
            let repository = SyncedMessages(
                store: session, storage: storage, path: "messages",
                synchronization: SynchronizationConfiguration(
                    pagination: .pageQuery(page: "_page", limit: "_limit", size: size),
                    prune: arguments.count > 5 && arguments[5] == "prune"))
            var report = SynchronizationReport()
            let elapsed = try await time { report = try await repository.synchronize().value }
            guard report.pullCompleted else { throw report.errors.first ?? DepotError(.decoding, "pull incomplete") }
            figures = PullFigures(seconds: elapsed.seconds, entities: report.pulled, pages: report.pages, peakMB: 0)
        }
        figures.peakMB = peakResidentMB()
        figures.cpuSeconds = processCPUSeconds()
        print(
            "RESULT \(figures.seconds) \(figures.entities) \(figures.pages) \(String(format: "%.1f", figures.peakMB))"
                + " \(figures.cpuSeconds)")
        return 0
    } catch {
        print("error: \(error)")
        return 1
    }
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
