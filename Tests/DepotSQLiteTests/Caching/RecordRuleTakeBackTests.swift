import Depot
import DepotTesting
import Foundation
import Testing

/// "One record, one rule": a remote-first write the server refuses is taken back through the one
/// record-write function as a restore is, a write of the collection no answer follows.
@Suite struct RecordRuleTakeBackTests {
    @Test(
        "a remote-first update refused as gone does not bring back the cached list that still names its entity",
        arguments: StorageKind.allCases)
    func refusedRemoteFirstWriteInvalidatesLists(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the list read cache-first, fresh for 300 s; then another client deletes note 1.
            fixture.server.cacheControl = "max-age=300"
            let messages = fixture.messages(.cacheFirst)
            #expect(try await messages.readAll().value.value.count == 3)
            _ = try await fixture.session.request(.delete, "messages/1", as: Okay.self).value

            // When: the app's remote-first edit of note 1 is refused (404: gone) and taken back.
            do {
                _ = try await messages.update(Message(id: "1", text: "uno")).value
                Issue.record("the update of a deleted note was not refused")
            } catch let error as DepotError {
                #expect(error.code == .notFound)
            }
            let list = try await messages.readAll().value

            // Then: the record is back as it was, and the list asked the server again, which no
            // longer lists note 1.
            #expect(try await fixture.storage.fetch(collection: "messages", id: "1")?.syncState == .synced)
            #expect(list.origin == .remote && list.value.map(\.id) == ["2", "3"])
            #expect(fixture.gets("/messages").count == 2)
        }
    }

    @Test(
        "a remote-first update refused (422) after a read saw another client's edit does not revive the cached list",
        arguments: StorageKind.allCases)
    func refusedUpdateAfterNewerReadInvalidatesLists(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: the list read cache-first, fresh for 300 s; then another client changes note 1.
            fixture.server.cacheControl = "max-age=300"
            let messages = fixture.messages(.cacheFirst)
            #expect(try await messages.readAll().value.value.map(\.text) == ["one", "two", "three"])
            let edit: JSON = ["id": "1", "text": "changed"]
            _ = try await fixture.session.request(.put, "messages/1", body: edit, as: Okay.self).value

            // When: the app's remote-first edit of note 1 is at the server, which holds its answer
            // (a refusal, 422) until a read of note 1 brought the server's change under the edit.
            let gate = StubGate()
            fixture.server.inject(.hold(gate), pathPrefix: "/messages/1")
            for method in [NetworkRequest.Method.put, .patch] {
                fixture.server.route(method, "/messages/1", response: .json(["error": "invalid"], status: 422))
            }
            async let update = messages.update(Message(id: "1", text: "uno")).value
            #expect(await eventuallyTrue { fixture.server.requests.filter { $0.path == "/messages/1" }.count == 2 })
            let read = try await fixture.messages(.remoteFirst).read("1").value
            #expect(read.value.text == "uno")
            gate.open()
            do {
                _ = try await update
                Issue.record("the refused update answered")
            } catch {}
            let list = try await messages.readAll().value

            // Then: the list asked the server again, which holds the other client's change.
            #expect(list.origin == .remote && list.value.map(\.text) == ["changed", "two", "three"])
            #expect(fixture.gets("/messages").count == 2)
        }
    }
}
