import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

/// Regression tests for "`synchronize()` racing the forwarder doubles a create": a write is
/// recorded in the outbox once, and a create the server took is never POSTed again.
@Suite struct SynchronizeRaceTests {
    @Test(
        "a create the forwarder delivers between adoptUnsynced's read and its transaction is not recorded again",
        arguments: StoreKind.allCases, [false, true])
    func forwarderDeliversDuringAdopt(kind: StoreKind, serverAssignsIDs: Bool) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a create recorded for the forwarder, and a synchronize() that, right after it
            // has read the unsynced records, waits for the forwarder to deliver that create
            if serverAssignsIDs { fixture.server.assignIDs(for: "messages") }
            _ = try await fixture.repository(strategy: recordOnly).create(Message(id: "m1", text: "hello")).value
            let forwarder = fixture.forwarder()
            let delivered = LockedValue(0)
            let storage = ReadGatedStorage(fixture.storage) {
                let report = try await forwarder.flush().value
                delivered.withLock { $0 += report.delivered }
            }
            let repository = SyncMessages(
                store: fixture.session, storage: storage, synchronization: SynchronizationConfiguration(pushMode: .each)
            )

            // When
            let report = try await repository.synchronize().value

            // Then: the forwarder's POST is the only one; synchronize() had nothing to send
            #expect(delivered.withLock { $0 } == 1)
            #expect(report.errors.isEmpty && report.pushed == 0)
            #expect(fixture.server.requests.filter { $0.method == "POST" }.count == 1)
            #expect(fixture.server.objects(in: "messages").map { $0["text"] } == ["hello"])
            #expect(try await fixture.outbox().isEmpty)
            let id = serverAssignsIDs ? "1" : "m1"
            #expect(try await fixture.stored(id)?.syncState == .synced)
        }
    }

    /// How the record is edited while its create is in flight.
    enum Edit: String, CaseIterable, Sendable, CustomStringConvertible {
        /// By a repository that records the write in the outbox.
        case outbox
        /// By a ``StorageRepository``, which records no outbox entry.
        case storageOnly
        var description: String { rawValue }
    }

    @Test(
        "bulkCollection: a create edited while its POST is in flight becomes an update of the server's id, never a second POST",
        arguments: StoreKind.allCases, Edit.allCases)
    func editedDuringBulkCreate(kind: StoreKind, edit: Edit) async throws {
        try await withOutboxFixture(kind) { fixture in
            // Given: a server that chooses ids, two local creates, and an edit of one of them made
            // while the server handles their POST
            fixture.server.assignIDs(for: "messages")
            let recording = fixture.repository(strategy: recordOnly)
            _ = try await recording.create(Message(id: "a", text: "new a")).value
            _ = try await recording.create(Message(id: "b", text: "new b")).value
            let storageOnly = LocalMessages(storage: fixture.storage)
            let edited = LockedValue(false)
            fixture.server.observe(.post, "messages") { _ in
                // The first POST only: the bulk create
                let first = edited.withLock { edited in
                    let first = !edited
                    edited = true
                    return first
                }
                guard first else { return }
                let done = DispatchSemaphore(value: 0)
                Task {
                    let message = Message(id: "a", text: "edited")
                    switch edit {
                    case .outbox: _ = try? await recording.update(message).value
                    case .storageOnly: _ = try? await storageOnly.update(message).value
                    }
                    done.signal()
                }
                done.wait()
            }
            let repository = SyncMessages(
                store: fixture.session, storage: fixture.storage,
                synchronization: SynchronizationConfiguration(pushMode: .bulkCollection))

            // When
            let report = try await repository.synchronize().value

            // Then: one POST; the edit went as a PUT of the server's id
            #expect(report.errors.isEmpty && report.failed == 0)
            let writes = fixture.server.requests.filter { $0.method != "GET" }.map { "\($0.method) \($0.path)" }
            #expect(writes == ["POST /messages", "PUT /messages/1"])
            let texts = fixture.server.objects(in: "messages").map {
                "\($0["id"]?.stringValue ?? "?") \($0["text"]?.stringValue ?? "?")"
            }
            #expect(texts == ["1 edited", "2 new b"])
            // The store holds the server's ids, synced, and the outbox is empty
            #expect(try await fixture.stored("a") == nil)
            let one = try #require(try await fixture.stored("1"))
            #expect(one.syncState == .synced && one.object["text"] == "edited" && one.object["id"] == "1")
            #expect(try await fixture.stored("2")?.syncState == .synced)
            #expect(try await fixture.outbox().isEmpty)
        }
    }
}
