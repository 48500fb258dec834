import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct OutboxPatchFormatTests {
    @Test(
        "an offline patch forwarded to a server that reads PATCH only as JSON is delivered, not refused",
        arguments: StoreKind.allCases)
    func forwardedPatchNegotiates(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "1", "text": "one", "likes": 1]]) { fixture in
            // Given: a server like Django REST Framework's: application/json only, no Accept-Patch
            fixture.server.setPatchFormats([.json], advertising: false, for: "messages")
            _ = try await fixture.repository().readAll().value
            let offline = fixture.repository(strategy: recordOnly)
            #expect(try await offline.patch(Message(id: "1", text: "one", likes: 7)).value.origin == .local)
            // When
            let report = try await fixture.forwarder().flush().value
            // Then: the 415 was negotiated, the entry delivered under its one key
            #expect(report.delivered == 1 && report.rejected.isEmpty)
            #expect(fixture.serverObject("1")?["likes"] == 7)
            let patches = fixture.server.requests.filter { $0.method == "PATCH" }
            #expect(patches.map { $0.header("content-type") } == ["application/merge-patch+json", "application/json"])
            #expect(Set(patches.map { $0.header("idempotency-key") }).count == 1)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
