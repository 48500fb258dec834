import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport
import Testing

/// The fleet crash test's check (``FleetCheck``, run by `swift run FleetCrashTest` on replica
/// processes), here on two storage objects over one SQLite file in this process: it passes a
/// correct run, and it finds a write applied twice, out of order or lost.
@Suite struct FleetCheckTests {
    @Test("two forwarders on one SQLite file forward a fleet workload: nothing lost, nothing twice, order kept")
    func twoForwardersPass() async throws {
        // Given / When: a small run
        let (outcome, workload) = try await Self.smallRun()
        // Then
        let check = FleetCheck(outcome, workload: workload)
        #expect(check.passed, "\(check.findings())")
        #expect(check.appliedCount >= 12, "the run forwarded writes")
        #expect(outcome.applied.contains { $0.resource == FleetItems.serverIDs && $0.method == "POST" })
    }

    @Test("the check finds a write applied twice, one applied out of order, and one lost")
    func findsViolations() async throws {
        // Given: a correct run's outcome, and an entity with at least two applied writes
        let (outcome, workload) = try await Self.smallRun()
        let byID = Dictionary(grouping: outcome.applied.filter { $0.method != "DELETE" && $0.id != nil }) {
            "\($0.resource)/\($0.id!)"
        }
        let twice = try #require(byID.values.first { $0.count >= 2 }, "the run wrote some entity twice")

        // When: the same write applied again at the end
        var duplicated = outcome
        var again = twice[0]
        again.sequence = (outcome.applied.map(\.sequence).max() ?? 0) + 1
        duplicated.applied.append(again)
        // Then
        #expect(!FleetCheck(duplicated, workload: workload).appliedTwice.isEmpty)

        // When: the entity's first two writes swapped in apply order
        var swapped = outcome
        let (first, second) = try #require(
            zip(outcome.applied.indices, outcome.applied).filter { twice.prefix(2).contains($0.1) }.map(\.0).pairs)
        (swapped.applied[first].sequence, swapped.applied[second].sequence) = (
            outcome.applied[second].sequence, outcome.applied[first].sequence
        )
        // Then
        #expect(!FleetCheck(swapped, workload: workload).outOfOrder.isEmpty)

        // When: the server lost an object
        var lost = outcome
        let collection = try #require(lost.server.first { !$0.value.isEmpty }?.key)
        lost.server[collection]?.removeFirst()
        // Then
        #expect(!FleetCheck(lost, workload: workload).lost.isEmpty)
    }

    /// 60 writes over 12 entities on one SQLite file through one storage object, two forwarders
    /// (one on a second storage object over the same file) flushing at once, 20 more writes and
    /// another flush of both; the outcome and the workload.
    static func smallRun() async throws -> (FleetOutcome, FleetWorkload) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        return try await withStubServer { server in
            server.resource(FleetItems.clientIDs)
            server.resource(FleetItems.serverIDs)
            server.assignIDs(for: FleetItems.serverIDs)
            let session = NetworkingSession(url: server.url)
            let (writer, other) = (
                try SQLiteStorage(path: directory.path("fleet.sqlite")),
                try SQLiteStorage(path: directory.path("fleet.sqlite"))
            )
            let repositories = Dictionary(
                uniqueKeysWithValues: FleetItems.both(store: session, storage: writer).map { ($0.path, $0) })
            var workload = FleetWorkload(entities: 12, seed: 26)
            try await workload.write(60, to: repositories)
            let queued = try await writer.outbox(OutboxQuery(selection: .all))
            workload.mark()
            let forwarders = [writer, other].map { storage in
                Forwarder(
                    storage: storage, repositories: FleetItems.both(store: session, storage: storage),
                    configuration: ForwarderConfiguration(jitter: 0, pageSize: 4))
            }
            try await flush(forwarders, until: writer)
            try await workload.write(20, to: repositories)
            try await flush(forwarders, until: writer)
            let outcome = try await FleetOutcome.read(server: server, storage: other, queued: queued)
            try writer.close()
            try other.close()
            return (outcome, workload)
        }
    }

    /// Flushes `forwarders` at once, again while `storage`'s outbox has entries (one forwarder
    /// skips what the other holds), at most 20 times.
    private static func flush(_ forwarders: [Forwarder], until storage: Storage) async throws {
        for _ in 0..<20 where try await storage.outboxCount(OutboxQuery(selection: .all)) > 0 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for forwarder in forwarders { group.addTask { _ = try await forwarder.flush().value } }
                try await group.waitForAll()
            }
        }
    }
}

extension Array {
    /// The first two elements, when there are at least two.
    fileprivate var pairs: (Element, Element)? { count >= 2 ? (self[0], self[1]) : nil }
}
