import Depot
import DepotAsyncHTTPClient
import DepotSQLite
import DepotTesting
import Foundation

// The store's HTTP cache: an unchanged 1,000-entity list pulled again (pages of 100) and 1,000
// unchanged records read again by id, with validators (each GET conditional, answered 304 with no
// body) against the same reads without them (the server sends no ETag, so each GET downloads and
// decodes the full body), on both transports, same stub server, SQLite stores: requests, body
// bytes received and time.

/// Messages read through the store's HTTP cache (the default rule: always ask, conditionally).
struct ValidatedMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
}

/// The same messages pulled as a list, in pages of 100.
struct ValidatedMessageList: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var synchronization: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .pageQuery(page: "_page", limit: "_limit", size: 100))
    }
}

/// A transport that counts the requests it sends and the body bytes it receives.
// @unchecked: `lock` guards `counts`.
final class CountingNetworking: Networking, @unchecked Sendable {
    let base: any Networking
    private let lock = NSLock()
    private var counts = (requests: 0, received: 0)

    init(_ base: any Networking) { self.base = base }

    var requests: Int { lock.withLock { counts.requests } }
    var received: Int { lock.withLock { counts.received } }
    func reset() { lock.withLock { counts = (0, 0) } }

    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest { try await base.prepared(request) }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let response = try await base.send(request)
        lock.withLock {
            counts.requests += 1
            counts.received += response.body.count
        }
        return response
    }
}

@MainActor func cacheRatios(count: Int = 1_000) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-cache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let filler = String(repeating: "lorem ipsum ", count: 16)
    let server = try await StubServer.start()
    server.resource(
        "messages",
        objects: (1...count).map { ["id": .string(String($0)), "text": .string("message \($0) \(filler)")] })
    let ids = (1...count).map(String.init)
    print(
        "== HTTP cache: an unchanged \(count)-entity list and \(count) records by id read again, with validators (304s) vs without"
    )
    let transports: [(String, any Networking)] = [
        ("URLSession", NetworkingSession(url: server.url)),
        ("AsyncHTTPClient", AsyncHTTPClientSession(url: server.url)),
    ]
    for (name, transport) in transports {
        var listSeconds: [Bool: Double] = [:]
        var readSeconds: [Bool: Double] = [:]
        for validators in [false, true] {
            server.servesValidators = validators
            let label = "\(name), \(validators ? "with validators" : "without validators")"
            let session = CountingNetworking(transport)

            // The list: pulled once (stored, each page's validators kept), then timed again.
            let listStorage = try SQLiteStorage(
                path: directory.appendingPathComponent("list-\(name)-\(validators).sqlite").path)
            let list = ValidatedMessageList(store: session, storage: listStorage)
            _ = try await list.synchronize().value
            session.reset()
            var before = server.notModifiedCount
            var report = SynchronizationReport()
            let listTime = try await time { report = try await list.synchronize().value }
            precondition(report.pullCompleted && report.errors.isEmpty, "pull failed: \(report.errors)")
            listSeconds[validators] = listTime.seconds
            row("pull of \(count), \(label)", listTime.seconds, per: 1, baseline: listSeconds[false]!)
            print(
                "    requests \(session.requests), 304s \(server.notModifiedCount - before),",
                "body bytes received \(session.received), entities pulled \(report.pulled)")

            // The records: each read once by id, then timed again.
            let storage = try SQLiteStorage(
                path: directory.appendingPathComponent("read-\(name)-\(validators).sqlite").path)
            let messages = ValidatedMessages(store: session, storage: storage)
            for id in ids { _ = try await messages.read(id).value }
            session.reset()
            before = server.notModifiedCount
            let readTime = try await time { for id in ids { _ = try await messages.read(id).value } }
            readSeconds[validators] = readTime.seconds
            row("read(id) ×\(count), \(label)", readTime.seconds, per: count, baseline: readSeconds[false]!)
            print(
                "    requests \(session.requests), 304s \(server.notModifiedCount - before),",
                "body bytes received \(session.received)")
        }
    }
}
