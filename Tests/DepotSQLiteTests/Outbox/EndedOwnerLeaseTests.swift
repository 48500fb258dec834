import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lease's owner is alive while it holds its lock file beside the SQLite file; a process that
/// died (SIGKILL mid-flush) left its lock free, and its leases are free at once, not after
/// `leaseDuration`.
@Suite struct EndedOwnerLeaseTests {
    /// Queues `count` creates, then leases them for a minute to the process `token`, as a
    /// forwarder in that process would have claimed them before it was killed.
    private func queueLeased(_ fixture: OutboxFixture, count: Int, token: String) async throws {
        let messages = fixture.repository(strategy: recordOnly)
        for index in 1...count { _ = try await messages.create(Message(id: "m\(index)", text: "t")).value }
        let sequences = try await fixture.outbox().map(\.sequence)
        let claimed = try await fixture.storage.transaction { tx in
            let now = try tx.leaseTime()
            return try tx.claimOutbox(
                sequences: sequences,
                lease: OutboxLease(owner: "otherhost:4242:\(token)#1", expiry: now.addingTimeInterval(60)), now: now)
        }
        #expect(claimed.count == count)
    }

    @Test("a dead process's leases (its lock file free) are taken at once: the restart delivers everything")
    func deadOwnerFreedAtOnce() async throws {
        try await withOutboxFixture { fixture in
            let path = try #require((fixture.storage as? SQLiteStorage)?.path)
            let token = UUID().uuidString
            // Given entries leased by a process whose lock file is there but held by nobody
            let file = "\(path)-owners/\(token).lock"
            #expect(FileManager.default.createFile(atPath: file, contents: Data()))
            try await queueLeased(fixture, count: 5, token: token)
            // When a forwarder flushes (before: `pending 5` until the minute's leases lapsed)
            let forwarder = fixture.forwarder(fixture.repository(strategy: recordOnly))
            let report = try await forwarder.flush().value
            await forwarder.stop()
            // Then all five are delivered, each once
            #expect(report.delivered == 5)
            #expect(try await fixture.outbox().isEmpty)
            #expect(fixture.server.requests.filter { $0.method == "POST" }.count == 5)
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    @Test("a live process's leases (its lock file held) are left alone until they lapse")
    func liveOwnerKeepsItsLeases() async throws {
        try await withOutboxFixture { fixture in
            let path = try #require((fixture.storage as? SQLiteStorage)?.path)
            let token = UUID().uuidString
            // Given entries leased by a process that holds its lock (held here, on its own descriptor)
            let descriptor = open("\(path)-owners/\(token).lock", O_RDWR | O_CREAT, 0o644)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            try await queueLeased(fixture, count: 2, token: token)
            let forwarder = fixture.forwarder(fixture.repository(strategy: recordOnly))
            let report = try await forwarder.flush().value
            await forwarder.stop()
            // Then nothing is sent behind its back
            #expect(report.delivered == 0)
            #expect(try await fixture.outbox().count == 2)
            #expect(fixture.server.requests.isEmpty)
        }
    }

    @Test("an owner name that is not Depot's (no UUID token) is judged by its expiry alone")
    func foreignOwnerName() async throws {
        try await withOutboxFixture { fixture in
            try await queueLeased(fixture, count: 1, token: "../../etc/passwd")
            let forwarder = fixture.forwarder(fixture.repository(strategy: recordOnly))
            let report = try await forwarder.flush().value
            await forwarder.stop()
            #expect(report.delivered == 0)
            #expect(try await fixture.outbox().count == 1)
        }
    }
}
