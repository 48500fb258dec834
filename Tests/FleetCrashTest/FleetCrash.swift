import Depot
import DepotTesting
import Foundation
import SoakSupport

/// The parent: a stub server that honours keys and assigns the tickets' ids, one shared store, two
/// thirds of the writes queued before the replicas start and the rest while they forward, random
/// replicas SIGKILLed and restarted, and the check (``FleetCheck``) once the outbox is empty.
struct FleetCrash {
    /// The command line.
    let arguments: FleetArguments
    /// The shared store.
    let store: FleetStore
    /// The server the replicas forward to.
    let server: StubServer
    /// Holds the `finished` marker (and the SQLite file by default).
    let directory: URL
    /// Chooses kill moments and victims.
    var random: SeededGenerator

    /// How many writes a run queues unless `--writes` says.
    static let defaultWrites = 3_000

    /// The replicas' lease: short, so the leases of killed replicas lapse and are taken during the
    /// run, and renewals race the other replicas' claims.
    static let leaseMilliseconds = 2_000

    /// Slot `slot`'s role, kept across restarts: a forwarder; a replica that pushes the client-id
    /// collection with `synchronize()` to its batch route; a forwarder whose clock runs 30 s fast.
    static func role(_ slot: Int) -> [String] {
        switch slot % 3 {
        case 1: ["--role", "batch"]
        case 2: ["--clock-offset", "30"]
        default: []
        }
    }

    /// The roles of `count` replicas, for the summary.
    static func roles(_ count: Int) -> String {
        (0..<count).map { slot in
            switch slot % 3 {
            case 1: "batch push"
            case 2: "forwarder, clock +30 s"
            default: "forwarder"
            }
        }.joined(separator: ", ")
    }

    /// Runs the test; returns the exit status (0 when it passed).
    static func main(_ arguments: FleetArguments) async -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FleetCrashTest-\(UUID())")
        let server: StubServer
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            server = try await StubServer.start(threads: 2)
        } catch {
            complain("cannot set up: \(error)")
            return 1
        }
        server.resource(FleetItems.clientIDs)
        server.resource(FleetItems.serverIDs)
        server.assignIDs(for: FleetItems.serverIDs)
        if let latency = arguments.latency, latency > 0 {
            server.inject(.delay(.milliseconds(latency)), times: Int.max)
        }
        let store = arguments.store ?? .sqlite(directory.appendingPathComponent("fleet.sqlite").path)
        var test = FleetCrash(
            arguments: arguments, store: store, server: server, directory: directory,
            random: SeededGenerator(seed: ~arguments.seed))
        let passed: Bool
        do {
            passed = try await test.run()
        } catch {
            complain("FAILED: \(error) (seed \(arguments.seed))")
            passed = false
        }
        try? await server.shutdown()
        if passed {
            try? FileManager.default.removeItem(at: directory)
        } else {
            complain("the run's files are kept in \(directory.path); rerun with --seed \(arguments.seed)")
        }
        return passed ? 0 : 1
    }

    /// Queues, forwards with kills, checks; prints the summary. Returns whether the check passed.
    ///
    /// - Throws: ``HarnessError`` when a replica fails or hangs; what the store threw.
    mutating func run() async throws -> Bool {
        let opened = try await store.open()
        do {
            let passed = try await run(on: opened.storage)
            await opened.close()
            return passed
        } catch {
            await opened.close()
            throw error
        }
    }

    /// ``run()`` on the parent's own connection to the shared store.
    private mutating func run(on storage: Storage) async throws -> Bool {
        let start = ContinuousClock.now
        let writes = arguments.writes ?? Self.defaultWrites
        let leaseMilliseconds = arguments.leaseMilliseconds ?? Self.leaseMilliseconds
        guard try await storage.outboxCount(OutboxQuery(selection: .all)) == 0 else {
            throw HarnessError(description: "the store's outbox is not empty before the run: use a new store")
        }
        let session = NetworkingSession(url: server.url)
        let repositories = Dictionary(
            uniqueKeysWithValues: FleetItems.both(store: session, storage: storage).map { ($0.path, $0) })
        var workload = FleetWorkload(
            entities: arguments.entities, seed: arguments.seed,
            prefix: store.outlivesRun ? "\(UUID().uuidString.prefix(6))-" : "")
        say(
            "seed \(arguments.seed): \(writes) writes over \(arguments.entities) entities, \(arguments.replicas)"
                + " replicas (\(Self.roles(arguments.replicas)); leases \(leaseMilliseconds) ms) on \(store),"
                + " \(arguments.kills) kills, stub server on port \(server.port)")

        let before = writes * 2 / 3
        try await workload.write(before, to: repositories)
        let queued = try await storage.outbox(OutboxQuery(selection: .all))
        workload.mark()

        let finished = directory.appendingPathComponent("finished").path
        var replicas = try FleetReplicas(
            count: arguments.replicas, executable: Bundle.main.executablePath ?? CommandLine.arguments[0],
            arguments: [
                "--child", "--store", store.description, "--port", String(server.port), "--finished", finished,
                "--lease-ms", String(leaseMilliseconds),
            ],
            slotArguments: Self.role)
        try await replicas.waitFor("started", timeout: .seconds(60))
        let forwarding = ContinuousClock.now
        var left = writes - before
        // Kill moments spread over the forwarding: the queued entries and about as many again as
        // the later writes add (most of them follow an entry already sent).
        let span = max(queued.count + left * 3 / 4, 2)
        var kills = (0..<arguments.kills).map { _ in Int.random(in: 1..<span, using: &random) }.sorted()
        var midForward = 0
        // The latest restart not yet followed by an applied write, and the writes applied then;
        // the longest wait from a restart to the next applied write (with one replica: how long a
        // restarted forwarder takes to go on from where the killed one stopped).
        var restart: (at: ContinuousClock.Instant, applied: Int)?
        var slowestRestart = Duration.zero
        do {
            while !replicas.allEnded {
                // The last third goes in a few writes at a time while the replicas forward, so an
                // entity's new write often follows one already sent (a second entry, not folded in).
                if left > 0 {
                    let chunk = min(left, 5)
                    try await workload.write(chunk, to: repositories)
                    left -= chunk
                    if left == 0 { try touch(finished) }
                }
                try await Task.sleep(for: .milliseconds(5))
                if let next = kills.first, server.appliedWrites.count >= next {
                    kills.removeFirst()
                    let slot = Int.random(in: 0..<replicas.processes.count, using: &random)
                    if try await replicas.killAndRestart(slot) { midForward += 1 }
                    restart = (ContinuousClock.now, server.appliedWrites.count)
                }
                if let last = restart, server.appliedWrites.count > last.applied {
                    slowestRestart = max(slowestRestart, ContinuousClock.now - last.at)
                    restart = nil
                }
                let failures = replicas.failures
                guard failures.isEmpty else { throw HarnessError(description: failures.joined(separator: "; ")) }
                guard ContinuousClock.now < forwarding + FleetChild.deadline + .seconds(10) else {
                    throw HarnessError(description: "the replicas did not finish in time")
                }
            }
        } catch {
            replicas.killAll()
            throw error
        }
        let forwarded = ContinuousClock.now - forwarding

        let outcome = try await FleetOutcome.read(server: server, storage: storage, queued: queued)
        let check = FleetCheck(outcome, workload: workload)
        let batches = outcome.requests.filter { $0.path.hasSuffix("/collection") }.count
        say(
            "duplicate sends: \(server.replayedWrites) answered by replaying a stored key,"
                + " \(check.appliedTwice.count) applied twice; \(batches) batch requests")
        guard check.passed else {
            for line in check.findings() { complain("  \(line)") }
            complain(
                "FAILED: \(check.lost.count) lost, \(check.appliedTwice.count) applied twice,"
                    + " \(check.outOfOrder.count) out of order, \(check.problems.count) other problems"
                    + " (seed \(arguments.seed), \(store))")
            return false
        }
        say(
            "fleet: \(workload.counts.total) writes (\(workload.counts)), \(queued.count) entries queued before"
                + " forwarding → \(check.appliedCount) applied by"
                + " \(arguments.replicas) replicas (\(replicas.started) started, \(midForward) killed mid-forward),"
                + " \(server.replayedWrites) replayed by key: 0 lost, 0 applied twice, per-entity order kept,"
                + " outbox empty (forwarding \(FleetThroughput.seconds(forwarded)) s,"
                + " slowest restart to its next applied write \(FleetThroughput.seconds(slowestRestart)) s,"
                + " total \(FleetThroughput.seconds(ContinuousClock.now - start)) s, seed \(arguments.seed))")
        return true
    }
}
