import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// One sender per storage: a local-first write's immediate send is left to the forwarder running
/// on the storage, instead of racing it for the entry's lease.
@Suite struct HandOffTests {
    @Test(
        "with a forwarder running, a local-first write is sent by the forwarder, once; stopped, by the call",
        arguments: StoreKind.allCases)
    func runningForwarderSends(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a running forwarder on the storage, watched
            let repository = fixture.repository(strategy: .localFirst)
            let forwarder = fixture.forwarder(repository)
            var events = forwarder.events.makeAsyncIterator()
            forwarder.start()

            // When: the app creates an entity local-first
            let answer = try await repository.create(Message(id: "m1", text: "hello")).value

            // Then: the call answers from the store; the forwarder delivers the create, once
            #expect(answer.origin == .local && answer.synchronizationError == nil)
            var delivered: OutboxEntry?
            while delivered == nil, let event = await events.next() {
                if case .delivered(let entry) = event { delivered = entry }
            }
            #expect(delivered?.entityID == "m1" && delivered?.operation == .create)
            #expect(fixture.server.requests.filter { $0.method == "POST" }.count == 1)

            // When: the forwarder stops, and the app edits the entity
            await forwarder.stop()
            _ = try await repository.update(Message(id: "m1", text: "edited")).value

            // Then: the call sent it itself, as it does with no forwarder
            #expect(fixture.serverObject("m1")?["text"] == "edited")
            #expect(try await fixture.outbox().isEmpty)
            #expect(try await fixture.stored("m1")?.syncState == .synced)
        }
    }

    @Test("a local-first create sent at once costs three storage transactions, and no other call")
    func createHops() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            // Given: a local-first repository over a storage that counts its round trips
            let storage = CountingStorage(fixture.storage)
            let repository = OutboxMessages(store: fixture.session, storage: storage, strategy: .localFirst)

            // When: the app creates an entity, which is sent at once
            let answer = try await repository.create(Message(id: "m1", text: "hello")).value

            // Then: stored, delivered, synced: the write, the claim (with the record read), the
            // answer (with the entry's removal and its lease) — before, six round trips
            #expect(answer.synchronizationError == nil && fixture.serverObject("m1")?["text"] == "hello")
            #expect(try await fixture.stored("m1")?.syncState == .synced)
            let calls = storage.calls
            #expect(calls.transactions == 3 && calls.others == 0, "\(calls)")
        }
    }
}

/// A remote create from a JSON object that names its id sends the entity's earlier offline writes
/// first, as the other remote writes do.
@Suite struct DictionaryCreateOrderTests {
    @Test("create(_ dictionary:) sends an earlier queued delete of its id first", arguments: StoreKind.allCases)
    func earlierDeleteGoesFirst(kind: StoreKind) async throws {
        try await withOutboxFixture(kind, objects: [["id": "x", "text": "old"]]) { fixture in
            // Given: a delete of "x" made offline, waiting in the outbox
            let messages = fixture.repository(strategy: .remoteFirst)
            _ = try await messages.readAll().value
            try await fixture.server.goOffline()
            #expect(try await messages.delete(id: "x").value.origin == .local)
            try await fixture.server.goOnline()

            // When: online again, the app creates "x" anew from a JSON object
            let created = try await messages.create(["id": "x", "text": "new"]).value
            _ = try await fixture.forwarder(messages).flush().value

            // Then: the delete went first, so the new "x" stands
            #expect(created.origin == .remote)
            let writes = fixture.server.requests.filter { $0.method != "GET" }.map(\.method)
            #expect(writes.suffix(2) == ["DELETE", "POST"])
            #expect(fixture.serverObject("x")?["text"] == "new")
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
