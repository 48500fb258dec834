import Depot
import DepotAsyncHTTPClient
import DepotSQLite
import DepotTesting
import Foundation

// The store's HTTP cache: 1,000 unchanged records read again by id with validators (each GET
// conditional, answered 304 with no body) against the same reads without them (the server sends no
// ETag, so each GET downloads and decodes the full body), on both transports, same stub server,
// same SQLite store: requests, body bytes received and time.

/// Messages read through the store's HTTP cache (the default rule: always ask, conditionally).
struct CachedMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
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
    print("== HTTP cache: \(count) unchanged records read again by id, with validators (304s) vs without")
    let transports: [(String, any Networking)] = [
        ("URLSession", NetworkingSession(url: server.url)),
        ("AsyncHTTPClient", AsyncHTTPClientSession(url: server.url)),
    ]
    for (name, transport) in transports {
        var seconds: [Bool: Double] = [:]
        for validators in [false, true] {
            server.servesValidators = validators
            let session = CountingNetworking(transport)
            let storage = try SQLiteStorage(
                path: directory.appendingPathComponent("\(name)-\(validators).sqlite").path)
            let messages = CachedMessages(store: session, storage: storage)
            for id in ids { _ = try await messages.read(id).value }  // first pass: stored, validators kept
            session.reset()
            let before = server.notModifiedCount
            let elapsed = try await time { for id in ids { _ = try await messages.read(id).value } }
            seconds[validators] = elapsed.seconds
            let label = "\(name), \(validators ? "with validators" : "without validators")"
            row("read(id) ×\(count), \(label)", elapsed.seconds, per: count, baseline: seconds[false]!)
            print(
                "    requests \(session.requests), 304s \(server.notModifiedCount - before),",
                "body bytes received \(session.received)")
        }
    }
}
