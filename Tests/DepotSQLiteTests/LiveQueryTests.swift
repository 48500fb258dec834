import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct LiveQueryTests {
    @Test(
        "observe: the current result, then the latest after 400 concurrent writes from two repositories and a pull",
        arguments: StoreKind.allCases)
    func observeCriteria(kind: StoreKind) async throws {
        let serverObjects: [JSONObject] = (1...100).map {
            ["id": .string("s\($0)"), "text": "server", "author": $0.isMultiple(of: 2) ? "ann" : "bob"]
        }
        try await withOutboxFixture(kind, objects: serverObjects) { fixture in
            let first = fixture.repository(strategy: recordOnly)
            let second = OutboxMessages(store: fixture.session, storage: fixture.storage, strategy: recordOnly)
            _ = try await first.create(Message(id: "seed", text: "seed", author: "ann")).value
            let seen = LockedValue<[[String]]>([])
            let observer = Task {
                for await messages in first.observe(Criteria(["author": "ann"])) {
                    seen.withLock { $0.append(messages.map(\.id).sorted()) }
                }
            }
            #expect(await eventuallyTrue { seen.withLock { $0.first } == ["seed"] })
            // 400 writes from two repositories at once (1,000 before: CPU the README suite does not need
            // for the race), a quarter of them by another author, and a pull
            let puller = PullOnlyMessages(store: fixture.session, storage: fixture.storage)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let report = try await puller.synchronize().value
                    #expect(report.pullCompleted && report.pulled == 100)
                }
                for index in 0..<400 {
                    let repository = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        _ = try await repository.create(
                            Message(id: "m\(index)", text: "t", author: index.isMultiple(of: 4) ? "bob" : "ann")
                        ).value
                    }
                }
                try await group.waitForAll()
            }
            _ = try await first.delete(id: "seed").value
            let expected =
                ((0..<400).filter { !$0.isMultiple(of: 4) }.map { "m\($0)" }
                + (1...100).filter { $0.isMultiple(of: 2) }.map { "s\($0)" }).sorted()
            // The last emission equals the store
            #expect(await eventuallyTrue { seen.withLock { $0.last } == expected })
            let stored = try await fixture.storage.fetch(collection: "messages", matching: Criteria(["author": "ann"]))
                .map(\.id).sorted()
            #expect(stored == expected)
            // Coalesced: far fewer emissions than writes is allowed, a backlog is not needed
            #expect(seen.withLock { $0.count } <= 403)
            observer.cancel()
        }
    }

    @Test("observe(id:): the value, its changes, nil once deleted", arguments: StoreKind.allCases)
    func observeID(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            let seen = LockedValue<[String?]>([])
            let observer = Task {
                for await message in messages.observe(id: "1") { seen.withLock { $0.append(message?.text) } }
            }
            #expect(await eventuallyTrue { seen.withLock { $0 } == [nil] })
            _ = try await messages.create(Message(id: "1", text: "one")).value
            #expect(await eventuallyTrue { seen.withLock { $0.last } == "one" })
            _ = try await messages.update(Message(id: "1", text: "uno")).value
            #expect(await eventuallyTrue { seen.withLock { $0.last } == "uno" })
            _ = try await messages.delete(id: "1").value
            #expect(await eventuallyTrue { seen.withLock { $0.last } == .some(nil) })
            observer.cancel()
        }
    }

    @Test("storage.changes(collection:): the ids each committed write changed, in order", arguments: StoreKind.allCases)
    func changes(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let stream = fixture.storage.changes(collection: "messages")
            var iterator = stream.makeAsyncIterator()
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "1", text: "one")).value
            try await fixture.storage.upsert(
                StoredRecord(collection: "other", id: "x", object: [:], syncState: .synced)
            )

            _ = try await fixture.storage.delete(collection: "messages", id: "1")
            let created = await iterator.next()
            #expect(created?.changed == ["1"] && created?.deleted == [])
            let deleted = await iterator.next()
            #expect(deleted?.deleted == ["1"] && deleted?.changed == [])
        }
    }

    @Test("ending the consuming task ends the observation and releases the storage", arguments: StoreKind.allCases)
    func cancellationReleases(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        weak var released: AnyObject?
        let ended = LockedValue(false)
        do {
            let storage: Storage =
                switch kind {
                case .sqlite: try SQLiteStorage(path: directory.path("live.sqlite"))
                case .memory: InMemoryStorage()
                }
            released = storage as AnyObject
            let messages = LocalOnlyMessages(storage: storage)
            let observer = Task {
                for await _ in messages.observe() {}
                ended.withLock { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(50))
            observer.cancel()
            #expect(await eventuallyTrue { ended.withLock { $0 } })
        }
        #expect(await eventuallyTrue { released == nil })
    }

    @Test(
        "forwarder.pendingCounts: the count now, after each offline write, and after a flush",
        arguments: StoreKind.allCases)
    func pendingCounts(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            let forwarder = fixture.forwarder(messages)
            let counts = LockedValue<[Int]>([])
            let observer = Task { for await count in forwarder.pendingCounts { counts.withLock { $0.append(count) } } }
            #expect(await eventuallyTrue { counts.withLock { $0.first } == 0 })
            for index in 1...3 { _ = try await messages.create(Message(id: "\(index)", text: "t")).value }
            #expect(await eventuallyTrue { counts.withLock { $0.last } == 3 })
            _ = try await forwarder.flush().value
            #expect(await eventuallyTrue { counts.withLock { $0.last } == 0 })
            observer.cancel()
        }
    }
}

/// A cached repository used only locally.
struct LocalOnlyMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let storage: Storage
    var store: Networking { NetworkingSession(url: URL(string: "http://127.0.0.1:9")!) }
    let path = "messages"
    var strategy: Strategy { recordOnly }
}

/// Pulls messages without pushing.
struct PullOnlyMessages: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var synchronization: SynchronizationConfiguration { SynchronizationConfiguration(push: false) }
}
