import AsyncHTTPClient
import Benchmark
import Depot
import DepotAsyncHTTPClient
import DepotTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import NIOCore
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// One `read(id)` per iteration (or 8 in flight at once), Depot against the bare client of each
// transport + JSONDecoder, stub server on loopback in the same process: wall time and mallocs.
// The "no I/O" shapes run Depot's own per-request path against a canned answer, so their mallocs
// are Depot's alone. Ratios for the same shapes come from `swift run -c release Ratios transport`.

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

struct MessageRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
}

/// A transport that answers every request at once with the same `Message`, through the shared
/// pipeline (headers, interceptors, URL, logging) but without any I/O.
struct CannedNetworking: Networking {
    let pipeline: RequestPipeline
    let answer = NetworkResponse(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"id":"1","text":"one"}"#.utf8))

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        let answer = self.answer
        return try await pipeline.send(request) { _, _, _ in answer }
    }
}

/// The server, clients and repositories every shape shares; made once, by the first setup.
final class Fixture: Sendable {
    let server: StubServer
    let base: URL
    let urlSession: URLSession
    let client: HTTPClient
    let onURLSession: MessageRepository
    let onAsyncHTTPClient: MessageRepository
    let canned: MessageRepository
    /// The same with a metrics backend (swift-metrics' TestMetrics) in its configuration.
    let cannedMeasured: MessageRepository
    let decoder = JSONDecoder()

    init() async throws {
        server = try await StubServer.start(threads: 1)
        server.resource(
            "messages", objects: (1...100).map { ["id": .string(String($0)), "text": .string("message \($0)")] })
        base = server.url
        urlSession = URLSession(configuration: .ephemeral)
        client = AsyncHTTPClientSession.defaultClient
        onURLSession = MessageRepository(store: NetworkingSession(url: base))
        onAsyncHTTPClient = MessageRepository(store: AsyncHTTPClientSession(url: base))
        canned = MessageRepository(
            store: CannedNetworking(pipeline: RequestPipeline(baseURL: base, configuration: SessionConfiguration())))
        var measured = SessionConfiguration()
        measured.metricsFactory = TestMetrics()
        cannedMeasured = MessageRepository(
            store: CannedNetworking(pipeline: RequestPipeline(baseURL: base, configuration: measured)))
    }

    func url(_ index: Int) -> URL { base.appendingPathComponent("messages/\(index % 100 + 1)") }

    func rawURLSession(_ index: Int) async throws -> Message {
        var request = URLRequest(url: url(index))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            urlSession.dataTask(with: request) { data, _, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: data ?? Data())
                }
            }.resume()
        }
        return try decoder.decode(Message.self, from: data)
    }

    func rawAsyncHTTPClient(_ index: Int) async throws -> Message {
        var request = HTTPClientRequest(url: url(index).absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(30))
        let data = Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
        return try decoder.decode(Message.self, from: data)
    }
}

nonisolated(unsafe) var shared: Fixture?

func fixture() async throws -> Fixture {
    if let shared { return shared }
    let made = try await Fixture()
    shared = made
    return made
}

/// Runs `read` for indices 0..<8 at once and waits for all of them.
func eightWay(_ read: @escaping @Sendable (Int) async throws -> Message) async throws {
    try await withThrowingTaskGroup(of: Message.self) { group in
        for index in 0..<8 { group.addTask { try await read(index) } }
        for try await message in group { blackHole(message) }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        setup: { _ = try await fixture() }
    )

    Benchmark("raw URLSession + JSONDecoder, 1 GET") { benchmark in
        let fixture = try await fixture()
        for index in benchmark.scaledIterations { blackHole(try await fixture.rawURLSession(index)) }
    }
    Benchmark("Depot on URLSession, read(id)") { benchmark in
        let repository = try await fixture().onURLSession
        for index in benchmark.scaledIterations { blackHole(try await repository.read(String(index % 100 + 1)).value) }
    }
    Benchmark("raw AsyncHTTPClient + JSONDecoder, 1 GET") { benchmark in
        let fixture = try await fixture()
        for index in benchmark.scaledIterations { blackHole(try await fixture.rawAsyncHTTPClient(index)) }
    }
    Benchmark("Depot on AsyncHTTPClient, read(id)") { benchmark in
        let repository = try await fixture().onAsyncHTTPClient
        for index in benchmark.scaledIterations { blackHole(try await repository.read(String(index % 100 + 1)).value) }
    }

    Benchmark("raw URLSession + JSONDecoder, 8 GETs in flight") { _ in
        let fixture = try await fixture()
        try await eightWay { try await fixture.rawURLSession($0) }
    }
    Benchmark("Depot on URLSession, 8 read(id) in flight") { _ in
        let repository = try await fixture().onURLSession
        try await eightWay { try await repository.read(String($0 + 1)).value }
    }
    Benchmark("raw AsyncHTTPClient + JSONDecoder, 8 GETs in flight") { _ in
        let fixture = try await fixture()
        try await eightWay { try await fixture.rawAsyncHTTPClient($0) }
    }
    Benchmark("Depot on AsyncHTTPClient, 8 read(id) in flight") { _ in
        let repository = try await fixture().onAsyncHTTPClient
        try await eightWay { try await repository.read(String($0 + 1)).value }
    }

    Benchmark("Depot read(id), pipeline with a canned answer (no I/O)") { benchmark in
        let repository = try await fixture().canned
        for index in benchmark.scaledIterations { blackHole(try await repository.read(String(index % 100 + 1)).value) }
    }
    Benchmark("Depot read(id), canned answer, with a tracer and a metrics backend (no I/O)") { benchmark in
        let repository = try await fixture().cannedMeasured
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            for index in benchmark.scaledIterations {
                blackHole(try await repository.read(String(index % 100 + 1)).value)
            }
        }
        tracer.clearAll()
    }
    Benchmark("JSONDecoder, 1 Message (no I/O)") { benchmark in
        let fixture = try await fixture()
        let body = Data(#"{"id":"1","text":"one"}"#.utf8)
        for _ in benchmark.scaledIterations { blackHole(try fixture.decoder.decode(Message.self, from: body)) }
    }
    Benchmark("Depot JSONMapping.entity, 1 Message (no I/O)") { benchmark in
        let body = Data(#"{"id":"1","text":"one"}"#.utf8)
        for _ in benchmark.scaledIterations { blackHole(try JSONMapping.entity(Message.self, from: body)) }
    }
    Benchmark("NetworkRequest.url(relativeTo:) (no I/O)") { benchmark in
        let base = try await fixture().base
        let request = NetworkRequest(method: .get, path: "messages/42")
        for _ in benchmark.scaledIterations { blackHole(try request.url(relativeTo: base)) }
    }
}
