import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport
import Testing

/// The fault-injection model test in-process, on both stores (the `Soak` executable runs it in a
/// child process it SIGKILLs, on SQLite only: a store in memory does not survive a kill). The
/// timeout here is 400 ms (the executable's is 800 ms), so the faults that wait it out cost half,
/// and a case is 30 operations (the executable's rounds are 60).
@Suite struct SoakTests {
    @Test(
        "random operations under random faults: no write applied twice, none lost, store and server in step",
        arguments: [StoreKind.sqlite, .memory], [UInt64(11), 12])
    func soak(kind: StoreKind, seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given
            server.resource("items")
            SoakFaults.queue(
                on: server, resource: "items", seed: seed, requests: 180, rate: 20,
                timeoutDelay: .milliseconds(500))
            let storage: Storage =
                switch kind {
                case .sqlite: try SQLiteStorage(path: directory.path("soak.sqlite"))
                case .memory: InMemoryStorage()
                }
            let items = SoakSetup.items(
                session: SoakSetup.session(url: server.url, timeout: .milliseconds(400)), storage: storage, seed: seed)
            let forwarder = SoakSetup.forwarder(items)
            let journal = LockedValue<[String]>([])
            // When
            forwarder.start()
            await SoakRunner(items: items, forwarder: forwarder).run(seed: seed, count: 30) { line in
                journal.withLock { $0.append(line) }
            }
            await forwarder.stop()
            server.clearFaults()
            server.setPaging(maximumSize: nil, for: "items")
            let outcome = try await SoakRecovery.settle(
                items: items, server: server, deadline: ContinuousClock.now + .seconds(30))
            // Then
            var model = SoakModel()
            for line in journal.withLock({ $0 }) { model.read(line) }
            #expect(model.operations == 30)
            #expect(model.violations(of: outcome) == [], "replay: seed \(seed), \(kind)")
        }
    }
}
