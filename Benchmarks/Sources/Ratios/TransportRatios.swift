import AsyncHTTPClient
import Depot
import DepotAsyncHTTPClient
import DepotTesting
import Foundation
import NIOCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

struct MessageRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
}

/// One GET with the bare client of a transport, decoded with JSONDecoder: the baseline.
protocol RawClient: Sendable {
    func get(_ url: URL) async throws -> Data
}

struct RawURLSession: RawClient {
    let session: URLSession
    func get(_ url: URL) async throws -> Data {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, _, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: data ?? Data())
                }
            }.resume()
        }
    }
}

struct RawAsyncHTTPClient: RawClient {
    let client: HTTPClient
    func get(_ url: URL) async throws -> Data {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(30))
        return Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
    }
}

/// Times `baseline` and `candidate` in alternating rounds (baseline first in even rounds, second in
/// odd ones), so a change of load on a shared machine hits both: the median time of each and the
/// median of the rounds' ratios, candidate to baseline.
@MainActor func alternating(
    _ rounds: Int = 7, baseline: () async throws -> Duration, candidate: () async throws -> Duration
) async rethrows -> (baseline: Double, candidate: Double, ratio: Double) {
    var pairs: [(baseline: Double, candidate: Double)] = []
    for round in 0..<rounds {
        if round.isMultiple(of: 2) {
            let first = try await baseline().seconds
            pairs.append((first, try await candidate().seconds))
        } else {
            let first = try await candidate().seconds
            pairs.append((try await baseline().seconds, first))
        }
    }
    func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return (
        middle(pairs.map(\.baseline)), middle(pairs.map(\.candidate)),
        middle(pairs.map { $0.candidate / $0.baseline })
    )
}

@MainActor func transportRatios() async throws {
    let server = try await StubServer.start(threads: 1)
    server.resource(
        "messages", objects: (1...100).map { ["id": .string(String($0)), "text": .string("message \($0)")] })
    let base = server.url
    let requests = 2_000
    let urlSession = URLSession(configuration: .ephemeral)
    let raws: [(String, any RawClient)] = [
        ("URLSession", RawURLSession(session: urlSession)),
        ("AsyncHTTPClient", RawAsyncHTTPClient(client: AsyncHTTPClientSession.defaultClient)),
    ]
    let depots: [String: any Networking] = [
        "URLSession": NetworkingSession(url: base),
        "AsyncHTTPClient": AsyncHTTPClientSession(url: base),
    ]
    @Sendable func url(_ index: Int) -> URL { base.appendingPathComponent("messages/\(index % 100 + 1)") }

    print("== Stub server check: raw AsyncHTTPClient GETs, no decoding (\(requests) requests)")
    let ahc = RawAsyncHTTPClient(client: AsyncHTTPClientSession.defaultClient)
    for index in 0..<200 { _ = try await ahc.get(url(index)) }
    let serverSequential = try await median(5) {
        try await time { for index in 0..<requests { _ = try await ahc.get(url(index)) } }
    }
    let serverConcurrent = try await median(5) {
        try await time { try await concurrently(requests, lanes: 8) { _ = try await ahc.get(url($0)) } }
    }
    row("stub server, sequential (baseline)", serverSequential, per: requests, baseline: serverSequential)
    row("stub server, 8-way", serverConcurrent, per: requests, baseline: serverSequential)

    var depotRates: [String: (sequential: Double, concurrent: Double)] = [:]
    for (name, raw) in raws {
        let repository = MessageRepository(store: depots[name]!)
        let decoder = JSONDecoder()
        @Sendable func rawRead(_ index: Int) async throws {
            _ = try decoder.decode(Message.self, from: try await raw.get(url(index)))
        }
        @Sendable func depotRead(_ index: Int) async throws {
            _ = try await repository.read(String(index % 100 + 1)).value
        }
        for index in 0..<200 { try await rawRead(index); try await depotRead(index) }
        print("== read(id) on \(name): Depot vs the raw client + JSONDecoder (\(requests) requests)")
        let (rawSequential, depotSequential, sequentialRatio) = try await alternating(
            baseline: { try await time { for index in 0..<requests { try await rawRead(index) } } },
            candidate: { try await time { for index in 0..<requests { try await depotRead(index) } } })
        let (rawConcurrent, depotConcurrent, concurrentRatio) = try await alternating(
            baseline: { try await time { try await concurrently(requests, lanes: 8, rawRead) } },
            candidate: { try await time { try await concurrently(requests, lanes: 8, depotRead) } })
        // The ratio printed for Depot is the median of the paired rounds' ratios.
        row("raw \(name), sequential (baseline)", rawSequential, per: requests, baseline: rawSequential)
        row("Depot on \(name), sequential", depotSequential, per: requests, baseline: depotSequential / sequentialRatio)
        row("raw \(name), 8-way (baseline)", rawConcurrent, per: requests, baseline: rawConcurrent)
        row("Depot on \(name), 8-way", depotConcurrent, per: requests, baseline: depotConcurrent / concurrentRatio)
        depotRates[name] = (Double(requests) / depotSequential, Double(requests) / depotConcurrent)
    }
    if let fast = depotRates["AsyncHTTPClient"], let slow = depotRates["URLSession"] {
        print(
            String(
                format: "Depot on AsyncHTTPClient vs Depot on URLSession: %.2fx sequential, %.2fx 8-way",
                fast.sequential / slow.sequential, fast.concurrent / slow.concurrent))
    }

    let cycles = 300
    print("== Full CRUD cycle (create, read, update, delete) per second, \(cycles) cycles, sequential")
    var cycleBaseline: Double?
    for name in ["URLSession", "AsyncHTTPClient"] {
        let repository = MessageRepository(store: depots[name]!)
        @Sendable func cycle() async throws {
            var message = try await repository.create(["text": "cycle"]).value
            message = try await repository.read(message.id).value
            message.text = "edited"
            message = try await repository.update(message).value
            try await repository.delete(message).value
        }
        for _ in 0..<50 { try await cycle() }
        let seconds = try await median(5) { try await time { for _ in 0..<cycles { try await cycle() } } }
        cycleBaseline = cycleBaseline ?? seconds
        row(
            "CRUD cycle on \(name)\(name == "URLSession" ? " (baseline)" : "")", seconds, per: cycles,
            baseline: cycleBaseline!)
    }
    urlSession.finishTasksAndInvalidate()
    try await server.shutdown()
}

@MainActor func decodingRatios() async throws {
    let count = 1_000
    let array = JSON.array((1...count).map { ["id": .string(String($0)), "text": .string("message number \($0)")] })
    let bytes = try array.serialized()
    let rounds = 200
    print("== Decoding a \(count)-element collection (\(bytes.count) bytes) into Codable entities, \(rounds) times")
    let decoder = JSONDecoder()
    let direct = try await median {
        try await time { for _ in 0..<rounds { _ = try decoder.decode([Message].self, from: bytes) } }
    }
    let mapped = try await median {
        try await time { for _ in 0..<rounds { _ = try JSONMapping.entities(Message.self, from: bytes) } }
    }
    let enveloped = try JSON.object(["resources": array]).serialized()
    let unwrapped = try await median {
        try await time {
            for _ in 0..<rounds { _ = try JSONMapping.entities(Message.self, from: enveloped, envelope: "resources") }
        }
    }
    row("JSONDecoder, [Message] (baseline)", direct, per: rounds, baseline: direct)
    row("Depot JSONMapping.entities (readAll's path)", mapped, per: rounds, baseline: direct)
    row("Depot, unwrapping {\"resources\": […]}", unwrapped, per: rounds, baseline: direct)
}
