import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport
import Testing

/// The fault-injection model test in-process, on both stores (the `Soak` executable runs it in a
/// child process it SIGKILLs, on SQLite only: a store in memory does not survive a kill). The
/// timeout here is 400 ms (the executable's is 800 ms), so the faults that wait it out cost half,
/// and a case is 24 operations (the executable's rounds are 60). One seed per store (there were
/// two each): the README suite runs every test at once on 2 cores, so its CPU is every test's
/// time; CI's `Soak` step runs the many rounds.
@Suite struct SoakTests {
    @Test(
        "random operations under random faults: no write applied twice, none lost, store and server in step",
        arguments: zip([StoreKind.sqlite, .memory], [UInt64(11), 12]))
    func soak(kind: StoreKind, seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given
            server.resource("items")
            SoakFaults.queue(
                on: server, resource: "items", seed: seed, requests: 150, rate: 20,
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
            await SoakRunner(items: items, forwarder: forwarder).run(seed: seed, count: 24) { line in
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
            #expect(model.operations == 24)
            #expect(model.violations(of: outcome) == [], "replay: seed \(seed), \(kind)")
        }
    }

    /// The soak's new modes in one seeded round: found an older pull page storing over a newer
    /// delivery or a delete, a write to a temporary id after the id moved, and one entity's
    /// writes sent out of order by two senders. With several roads at once the outcome depends on
    /// timing; `swift run Soak` runs many such rounds.
    @Test(
        "server-assigned ids, ignored keys, both strategies, forwarder restarts and AutoSync: none lost, none applied more than its lost answers allow"
    )
    func soakModes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try await withStubServer { server in
            // Given
            let (seed, modes) = (UInt64(13), SoakModes(list: "assignIDs,ignoreKeys,roads")!)
            server.resource("items")
            server.assignIDs(startingAt: 500, for: "items")
            server.setIgnoresIdempotencyKeys(true, for: "items")
            let plan = SoakFaults.queue(
                on: server, resource: "items", seed: seed, requests: 240, rate: 20,
                timeoutDelay: SoakSetup.pastTimeout)
            let storage = try SQLiteStorage(path: directory.path("soak.sqlite"))
            let journal = LockedValue<[String]>([])
            // When
            await SoakProgram(modes: modes, seed: seed, operations: 30).run(
                url: server.url, storage: storage, second: nil
            ) { line in journal.withLock { $0.append(line) } }
            server.clearFaults()
            let requests = server.requests
            server.setPaging(maximumSize: nil, for: "items")
            let items = SoakItems(store: SoakSetup.session(url: server.url), storage: storage, strategy: .remoteFirst)
            var outcome = try await SoakRecovery.settle(
                items: items, server: server, deadline: ContinuousClock.now + .seconds(30))
            outcome.lostAnswers = plan.lostAnswers(requests)
            // Then
            var model = SoakModel(modes: modes)
            for line in journal.withLock({ $0 }) { model.read(line) }
            #expect(model.operations == 30)
            #expect(model.violations(of: outcome) == [], "replay: seed \(seed), \(modes)")
        }
    }
}
