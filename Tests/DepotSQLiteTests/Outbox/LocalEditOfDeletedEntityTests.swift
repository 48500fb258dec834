import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// The local-first side of ``EditOfDeletedEntityTests``.
@Suite struct LocalEditOfDeletedEntityTests {
    @Test(
        "a local-first edit behind a write refused with 404 fails .notFound, not queued for ever",
        arguments: StoreKind.allCases)
    func localEditBehindRefusal(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: x created and deleted remote-first, then a local-first edit the server refused (404)
            let messages = fixture.repository()
            let localFirst = fixture.repository(strategy: .localFirst)
            _ = try await messages.create(Message(id: "x", text: "a")).value
            _ = try await messages.delete(id: "x").value
            _ = try await localFirst.update(Message(id: "x", text: "b")).value
            let refused = try await fixture.outbox()
            #expect(refused.count == 1 && refused.first?.rejection?.status == 404)

            // When: another local-first edit and a patch
            let error = await #expect(throws: DepotError.self) {
                try await localFirst.update(Message(id: "x", text: "c")).value
            }
            let patchError = await #expect(throws: DepotError.self) {
                try await localFirst.patch(Message(id: "x", text: "d")).value
            }

            // Then: .notFound, nothing queued behind the refusal, the record as it was (a delete
            // agrees with the server instead: RefusedChainDeleteTests)
            #expect(error?.code == .notFound && patchError?.code == .notFound)
            #expect(try await fixture.outbox().map(\.sequence) == refused.map(\.sequence))
            #expect(try await fixture.outbox(.pending).isEmpty)
            #expect(try await fixture.stored("x")?.object["text"] == "b")

            // When: the app discards the refused edit
            #expect(try await fixture.forwarder().discard(try #require(refused.first)).value)

            // Then: the store no longer holds what the server never had
            #expect(try await fixture.stored("x") == nil)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
