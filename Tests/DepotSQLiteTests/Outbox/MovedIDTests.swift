import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Regression tests for "a write to a temporary id after the server moved it is stranded": once
/// the server has given a create its own id, a write the app makes under the old id (it still
/// holds the object it created) goes to the server's id, on every road.
@Suite struct MovedIDTests {
    @Test(
        "an update, a patch and a delete under the temporary id reach the entity under the server's id",
        arguments: StoreKind.allCases, ServerAssignedIDTests.Road.allCases)
    func writesUnderOldID(kind: StoreKind, road: ServerAssignedIDTests.Road) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a create the server gave id 42, delivered; the app still holds "tmp-1"
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            let repository = fixture.repository(strategy: road == .localFirst ? .localFirst : .remoteFirst)
            let forwarder = fixture.forwarder(repository)
            _ = try await repository.create(Message(id: "tmp-1", text: "draft")).value
            _ = try await forwarder.flush().value
            #expect(fixture.serverObject("42")?["text"] == "draft")
            #expect(try await fixture.stored("tmp-1") == nil)

            // When: it updates, then patches the object it holds, under "tmp-1"
            let updated = try await repository.update(Message(id: "tmp-1", text: "edited")).value
            _ = try await repository.patch(Message(id: "tmp-1", text: "patched")).value
            _ = try await forwarder.flush().value

            // Then: both went to 42, the answer names 42, one local record, nothing left to send
            #expect(updated.value.id == "42")
            #expect(fixture.serverObject("42")?["text"] == "patched")
            #expect(fixture.server.objects(in: "messages").count == 1)
            #expect(!fixture.server.requests.contains { $0.path.hasPrefix("/messages/tmp-1") })
            let record = try #require(try await fixture.stored("42"))
            #expect(record.object["text"] == "patched" && record.object["id"] == "42")
            #expect(record.syncState == .synced)
            #expect(try await fixture.stored("tmp-1") == nil)
            #expect(try await fixture.outbox().isEmpty)
            // A read under the old id finds the entity too
            #expect(try await repository.read("tmp-1").value.value.text == "patched")

            // When: it deletes "tmp-1"
            _ = try await repository.delete(id: "tmp-1").value
            _ = try await forwarder.flush().value

            // Then: the server's 42 is gone, and so is the local record
            #expect(fixture.server.objects(in: "messages").isEmpty)
            #expect(try await fixture.stored("42") == nil)
            #expect(try await fixture.outbox().isEmpty)
            #expect(!fixture.server.requests.contains { $0.path.hasPrefix("/messages/tmp-1") })
        }
    }

    @Test("a new entity created under an id the server once replaced is its own", arguments: StoreKind.allCases)
    func reusedTemporaryID(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: "tmp-1" moved to 42
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            let repository = fixture.repository(strategy: .localFirst)
            let forwarder = fixture.forwarder(repository)
            _ = try await repository.create(Message(id: "tmp-1", text: "first")).value
            _ = try await forwarder.flush().value

            // When: the app (after a restart, its counter reset) creates another "tmp-1" and edits it
            _ = try await repository.create(Message(id: "tmp-1", text: "second")).value
            _ = try await repository.update(Message(id: "tmp-1", text: "second, edited")).value
            _ = try await forwarder.flush().value

            // Then: two entities on the server, the first untouched
            #expect(fixture.serverObject("42")?["text"] == "first")
            #expect(fixture.serverObject("43")?["text"] == "second, edited")
            #expect(try await fixture.outbox().isEmpty)
        }
    }

    @Test(
        "a reused temporary id removed before it was sent frees the id: a later write never reaches the first entity",
        arguments: StoreKind.allCases)
    func reusedTemporaryIDRemoved(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: "tmp-1" moved to 42, then another "tmp-1" created and deleted before it was sent
            fixture.server.assignIDs(startingAt: 42, for: "messages")
            let repository = fixture.repository(strategy: .localFirst)
            let forwarder = fixture.forwarder(repository)
            _ = try await repository.create(Message(id: "tmp-1", text: "first")).value
            _ = try await forwarder.flush().value
            let offline = fixture.repository(strategy: Strategy(Rule(target: .local, synchronize: false)))
            _ = try await offline.create(Message(id: "tmp-1", text: "second")).value
            _ = try await offline.delete(id: "tmp-1").value
            #expect(try await fixture.stored("tmp-1") == nil)

            // When: the app writes under "tmp-1" again
            _ = try? await offline.update(Message(id: "tmp-1", text: "third")).value
            _ = try await forwarder.flush().value

            // Then: the first entity is untouched (the id's old move went with the removed record)
            #expect(fixture.serverObject("42")?["text"] == "first")
        }
    }

    @Test(
        "a patch that changes nothing leaves a synced record synced and records nothing",
        arguments: StoreKind.allCases)
    func patchWithoutChange(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a synced record (a fallen-back patch whose value a pull stored meanwhile)
            let repository = fixture.repository(strategy: .localFirst)
            let forwarder = fixture.forwarder(repository)
            _ = try await repository.create(Message(id: "m1", text: "same")).value
            _ = try await forwarder.flush().value
            #expect(try await fixture.stored("m1")?.syncState == .synced)

            // When: the app patches it to what it already holds
            _ = try await repository.patch(Message(id: "m1", text: "same")).value

            // Then: still synced, nothing queued (before, it stayed `.updated` with no entry to send)
            #expect(try await fixture.stored("m1")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
