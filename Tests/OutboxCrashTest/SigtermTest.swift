import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Logging
import ServiceLifecycle
import SoakSupport

/// The service child: a `ServiceGroup` running a forwarder over the SQLite file's outbox, shut
/// down gracefully by SIGTERM. Prints `started` once the group runs and `stopped` when `run()`
/// returned; exits 0.
enum ServiceChild {
    /// Runs the group until SIGTERM; returns the exit status.
    static func run(_ arguments: Arguments) async -> Int32 {
        do {
            let storage = try SQLiteStorage(path: arguments.database)
            defer { try? storage.close() }
            let session = NetworkingSession(
                url: URL(string: "http://127.0.0.1:\(arguments.port)")!,
                configuration: SessionConfiguration(timeout: .seconds(5)))
            let notes = Notes(store: session, storage: storage, strategy: .remoteFirst)
            let forwarder = Forwarder(for: notes, configuration: ForwarderConfiguration(maximumConcurrency: 4))
            let group = ServiceGroup(
                services: [forwarder], gracefulShutdownSignals: [.sigterm], logger: Logger(label: "service-child"))
            say("started")
            try await group.run()
            say("stopped")
            return 0
        } catch {
            complain("service child: \(error)")
            return 4
        }
    }
}

/// SIGTERM mid-forward: 1,000 writes queued, a service child forwarding them gets SIGTERM once
/// the server has applied a random share, must exit 0 within the grace period, and a restarted
/// child sends the rest: the server ends with every write exactly once.
struct SigtermTest {
    /// This executable, started again with `--service-child` and `--child`.
    let executable: String
    /// Chooses the moment of the SIGTERM.
    var random: SeededGenerator
    /// How long the child may take to stop after SIGTERM.
    static let gracePeriod = Duration.seconds(10)

    /// Runs `rounds` rounds; prints a line each and returns whether all passed.
    mutating func run(rounds: Int) async -> Bool {
        for number in 1...max(rounds, 1) {
            do {
                say("sigterm round \(number): \(try await round())")
            } catch {
                complain("sigterm round \(number): \(error)")
                complain("FAILED in sigterm round \(number)")
                return false
            }
        }
        return true
    }

    private mutating func round() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Sigterm-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("outbox.sqlite").path
        let server = try await StubServer.start()
        do {
            server.resource("notes")
            let writes = 1_000
            try await CrashTest.withStorage(database) { storage in
                let notes = Notes(
                    store: NetworkingSession(url: server.url), storage: storage,
                    strategy: Strategy(Rule(target: .local, synchronize: false)))
                for index in 0..<writes {
                    _ = try await notes.create(Note(id: "n\(index)", text: "queued", revision: 0, tag: nil)).value
                }
            }
            // Each write takes 2 ms on the server, so the SIGTERM lands mid-forward.
            server.inject(.delay(.milliseconds(2)), times: 10 * writes, pathPrefix: "/notes")
            let target = Int.random(in: 50...(writes / 2), using: &random)
            let child = try ChildProcess(
                executable: executable,
                arguments: ["--service-child", "--port", String(server.port), "--db", database])
            guard try await child.waitFor(line: "started", timeout: .seconds(30)) else {
                child.kill()
                throw HarnessError(description: "the service child did not start: \(child.ending)")
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while server.appliedWrites.count < target, child.ending == .running, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            child.terminate()
            let signalled = ContinuousClock.now
            let ending = try await child.waitForEnd(timeout: Self.gracePeriod)
            let stopTime = ContinuousClock.now - signalled
            if ending == .running { child.kill() }
            guard ending == .exited(0), child.printed("stopped") else {
                throw HarnessError(
                    description:
                        "after SIGTERM the child ended \(ending) in \(stopTime), not 0 within \(Self.gracePeriod)")
            }
            let atStop = server.appliedWrites.count
            server.clearFaults()
            let restart = try ChildProcess(
                executable: executable, arguments: ["--child", "--port", String(server.port), "--db", database])
            guard try await restart.waitForEnd(timeout: .seconds(60)) == .exited(0) else {
                restart.kill()
                throw HarnessError(description: "the restarted child did not empty the outbox")
            }
            var perID: [String: Int] = [:]
            for write in server.appliedWrites { if let id = write.id { perID[id, default: 0] += 1 } }
            let twice = perID.filter { $0.value > 1 }.keys.sorted()
            guard perID.count == writes, twice.isEmpty, server.objects(in: "notes").count == writes else {
                throw HarnessError(
                    description: "\(perID.count) of \(writes) writes applied, applied twice: \(twice.prefix(5))")
            }
            let synced = try await CrashTest.withStorage(database) { storage in
                try await storage.fetch(collection: "notes", syncStates: [.synced], after: nil, limit: Int.max)
                    .count
            }
            guard synced == writes else { throw HarnessError(description: "\(synced) of \(writes) synced locally") }
            try await server.shutdown()
            return "SIGTERM after \(atStop) of \(writes) applied, exit 0 in \(stopTime); restart sent the rest: "
                + "0 lost, 0 applied twice"
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}
