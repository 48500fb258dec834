import Depot
import DepotTesting
import Foundation
import SoakSupport

/// `--throughput`: how many writes per second 1, 2 and 3 replicas forward from one store to a
/// server that holds every answer (20 ms by default), measured in one run; each case queues the
/// same number of creates of distinct entities into a new store and a new server, starts its
/// replicas, opens their gate once all are ready, and times until the server has applied every write.
enum FleetThroughput {
    /// How many writes each case queues unless `--writes` says.
    static let defaultWrites = 600
    /// How long the server holds each answer unless `--latency-ms` says, in milliseconds.
    static let defaultLatency = 20

    /// Runs the cases; returns the exit status.
    static func main(_ arguments: FleetArguments) async -> Int32 {
        let writes = arguments.writes ?? defaultWrites
        let latency = arguments.latency ?? defaultLatency
        var rates: [(replicas: Int, rate: Double)] = []
        say(
            "forwarding \(writes) creates per case against a server that takes \(latency) ms per write,"
                + " on \(arguments.store.map { "\($0)" } ?? "a new SQLite file per case")")
        for replicas in 1...max(arguments.replicas, 1) {
            do {
                let seconds = try await measure(replicas: replicas, writes: writes, latency: latency, arguments)
                let rate = Double(writes) / seconds
                rates.append((replicas, rate))
                let ratio = rates.first.map { rate / $0.rate } ?? 1
                say(
                    "\(replicas) replica\(replicas == 1 ? "" : "s"): \(Int(rate.rounded())) writes/s"
                        + " (\(writes) in \(String(format: "%.2f", seconds)) s), \(String(format: "%.2f", ratio))×"
                        + " 1 replica")
            } catch {
                complain("FAILED with \(replicas) replicas: \(error)")
                return 1
            }
        }
        return 0
    }

    /// One case: seconds from the gate's opening until the server applied all `writes`.
    private static func measure(replicas count: Int, writes: Int, latency: Int, _ arguments: FleetArguments)
        async throws -> Double
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("FleetThroughput-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await StubServer.start(threads: 2)
        server.resource(FleetItems.clientIDs)
        server.resource(FleetItems.serverIDs)
        let store = arguments.store ?? .sqlite(directory.appendingPathComponent("fleet.sqlite").path)
        let opened = try await store.open()
        let items = FleetItems(
            store: NetworkingSession(url: server.url), storage: opened.storage, path: FleetItems.clientIDs)
        let prefix = UUID().uuidString.prefix(6)
        for number in 1...writes {
            let name = "i-\(prefix)-\(number)"
            _ = try await items.create(FleetItem(id: name, name: name, revision: number, text: "t", tag: nil)).value
        }
        await opened.close()
        if latency > 0 { server.inject(.delay(.milliseconds(latency)), times: Int.max) }

        let (gate, finished) = (
            directory.appendingPathComponent("gate").path, directory.appendingPathComponent("finished").path
        )
        try touch(finished)
        let replicas = try FleetReplicas(
            count: count, executable: Bundle.main.executablePath ?? CommandLine.arguments[0],
            arguments: [
                "--child", "--store", store.description, "--port", String(server.port), "--finished", finished,
                "--gate", gate,
            ])
        defer { replicas.killAll() }
        try await replicas.waitFor("ready", timeout: .seconds(60))
        let start = ContinuousClock.now
        try touch(gate)
        while server.appliedWrites.count < writes {
            let failures = replicas.failures
            guard failures.isEmpty else { throw HarnessError(description: failures.joined(separator: "; ")) }
            guard ContinuousClock.now < start + .seconds(300) else {
                throw HarnessError(description: "only \(server.appliedWrites.count) of \(writes) applied in 300 s")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        let elapsed = ContinuousClock.now - start
        while !replicas.allEnded { try await Task.sleep(for: .milliseconds(5)) }
        try await server.shutdown()
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// `"12.3"`: seconds with one decimal.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
