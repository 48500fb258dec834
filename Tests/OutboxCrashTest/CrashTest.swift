import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// The parent's side: a stub server and a SQLite file that last the whole run, and one round after
/// another of local writes, a forwarding child killed mid-forward, a restarted child, and a check.
struct CrashTest {
    /// The command line.
    let arguments: Arguments
    /// The server the children forward to; its applied-write record is what the check reads.
    let server: StubServer
    /// The parent's session: its repository never sends, but one needs a store.
    let session: NetworkingSession
    /// The temporary directory holding the SQLite file.
    let directory: URL
    /// This executable, started again with `--child`.
    let executable: String
    /// The parent's writes and the state they must lead to.
    var workload: Workload
    /// Chooses writes, faults and kill moments.
    var random: SeededGenerator

    /// The SQLite file the parent writes and the children forward.
    var database: String { directory.appendingPathComponent("outbox.sqlite").path }

    /// Runs every round; returns the exit status (0 when all passed).
    static func main(_ arguments: Arguments) async -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("OutboxCrashTest-\(UUID())")
        let server: StubServer
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            server = try await StubServer.start()
        } catch {
            complain("cannot set up: \(error)")
            return 1
        }
        server.resource("notes")
        say(
            "seed \(arguments.seed), \(arguments.rounds) rounds of \(arguments.writes) writes, stub server on port \(server.port)"
        )
        var test = CrashTest(
            arguments: arguments, server: server, session: NetworkingSession(url: server.url), directory: directory,
            executable: Bundle.main.executablePath ?? CommandLine.arguments[0],
            workload: Workload(idCount: max(arguments.writes * 3 / 4, 4), seed: arguments.seed),
            random: SeededGenerator(seed: ~arguments.seed))
        var passed = await test.run()
        try? await server.shutdown()
        if passed, arguments.pullRounds > 0 {
            var pulls = PullCrashTest(
                executable: test.executable, random: SeededGenerator(seed: arguments.seed ^ 0x9011))
            passed = await pulls.run(rounds: arguments.pullRounds)
        }
        if passed, arguments.sigtermRounds > 0 {
            var terms = SigtermTest(executable: test.executable, random: SeededGenerator(seed: arguments.seed ^ 0x7E2))
            passed = await terms.run(rounds: arguments.sigtermRounds)
        }
        if passed {
            try? FileManager.default.removeItem(at: directory)
        } else {
            complain("the SQLite file is kept in \(directory.path); rerun with --seed \(arguments.seed)")
        }
        return passed ? 0 : 1
    }

    /// Runs the rounds, stopping at the first that fails; prints a line per round and a summary.
    mutating func run() async -> Bool {
        let start = ContinuousClock.now
        var midForward = 0
        var slowestRestart = Duration.zero
        for number in 1...arguments.rounds {
            do {
                let report = try await round(number)
                say(report.line)
                guard report.check.passed else {
                    complain(report.failure)
                    complain("FAILED in round \(number)")
                    return false
                }
                if report.killedMidForward { midForward += 1 }
                slowestRestart = max(slowestRestart, report.restart)
            } catch {
                complain("round \(number): \(error)")
                complain("FAILED in round \(number)")
                return false
            }
        }
        let seconds = (ContinuousClock.now - start).components.seconds
        say(
            "\(arguments.rounds) rounds: 0 lost, 0 applied twice"
                + " (\(midForward) killed mid-forward, slowest restart \(RoundReport.milliseconds(slowestRestart)) ms"
                + " with 60 s leases, \(seconds) s, seed \(arguments.seed))")
        return true
    }

    /// Opens the SQLite file at `path`, runs `body` with it and closes it, so no two processes ever
    /// have it open at once.
    static func withStorage<Output>(_ path: String, _ body: (SQLiteStorage) async throws -> Output) async throws
        -> Output
    {
        let storage = try SQLiteStorage(path: path)
        do {
            let output = try await body(storage)
            try storage.close()
            return output
        } catch {
            try? storage.close()
            throw error
        }
    }
}

/// A failure of the harness itself (not a finding about the outbox).
struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String
}
