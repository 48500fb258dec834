import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// An answer that arrives after the app deleted its entity, made it again and deleted it again
/// (the second create and delete folded into nothing): the delete still queued is the newer local
/// change, and the answer never brings the record back (fleet crash test on PostgreSQL, seed
/// 4651685230389486758: `i-…-60` synced at revision 2506 after its deletes).
@Suite struct AnswerBehindLocalDeleteTests {
    @Test(
        "an update answered after a delete, a create and a delete of its entity leaves no record",
        arguments: StoreKind.allCases)
    func updateAnsweredBehindDeleteCreateDelete(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "m", "text": "M"]]) { fixture in
            // Given: m read, and its queued update at the server, its answer held
            _ = try await fixture.repository().readAll().value
            let writes = fixture.repository(strategy: recordOnly)
            _ = try await writes.update(Message(id: "m", text: "updated")).value
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/m")
            let forwarder = fixture.forwarder(writes)
            async let flushed = forwarder.flush().value
            #expect(await eventuallyTrue { fixture.server.requests.contains { $0.method == "PUT" } })

            // When: meanwhile the app deletes m, creates it again and deletes it again (the
            // create and its delete fold into nothing), and the update's answer arrives
            _ = try await writes.delete(id: "m").value
            _ = try await writes.create(Message(id: "m", text: "again")).value
            _ = try await writes.delete(id: "m").value
            gate.open()
            let first = try await flushed
            let second = try await forwarder.flush().value

            // Then: the update and one delete went, and m is gone on both sides
            #expect(first.rejected.isEmpty && second.rejected.isEmpty)
            #expect(fixture.server.requests.map(\.method) == ["GET", "PUT", "DELETE"])
            #expect(fixture.serverObject("m") == nil)
            #expect(try await fixture.stored("m") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
