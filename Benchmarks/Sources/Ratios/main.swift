import Depot
import DepotTesting
import Dispatch
import Foundation

// Prints every figure as a ratio against a baseline measured in the same run, same process.
// Each figure is the median of 7 rounds.

@MainActor func median(_ rounds: Int = 7, _ body: () async throws -> Duration) async rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<rounds { samples.append(try await body().seconds) }
    return samples.sorted()[rounds / 2]
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

@MainActor func time(_ body: () async throws -> Void) async rethrows -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

func row(_ name: String, _ seconds: Double, per operations: Int, baseline: Double) {
    let micro = seconds / Double(operations) * 1e6
    print(name.padding(toLength: 44, withPad: " ", startingAt: 0), String(format: "%9.3f µs/op   %5.2fx", micro, seconds / baseline))
}

let serial = DispatchQueue(label: "ratios.serial")
let concurrent = DispatchQueue(label: "ratios.concurrent", attributes: .concurrent)
let iterations = 20_000
let only = CommandLine.arguments.dropFirst().first

if only == nil || only == "promise" {
    print("== Promise: resolved promise, N chained blocks on a serial queue, waiting each iteration (\(iterations) iterations)")
    let semaphore = DispatchSemaphore(value: 0)
    let dispatch1 = await median {
        await time { for _ in 0..<iterations { serial.async { semaphore.signal() }; semaphore.wait() } }
    }
    let dispatch3 = await median {
        await time {
            for _ in 0..<iterations {
                serial.async { serial.async { serial.async { semaphore.signal() } } }
                semaphore.wait()
            }
        }
    }
    let task = await median { await time { for _ in 0..<iterations { _ = await Task.detached { 1 }.value } } }
    row("Dispatch, 1 block (baseline)", dispatch1, per: iterations, baseline: dispatch1)
    row("Dispatch, 3 nested blocks", dispatch3, per: iterations, baseline: dispatch1)
    row("Task, 1 hop", task, per: iterations, baseline: dispatch1)
    for blocks in 1...3 {
        let depot = await median {
            await time {
                for _ in 0..<iterations {
                    var promise = Promise(0)
                    for _ in 1..<blocks { promise = promise.map(on: serial) { $0 + 1 } }
                    promise.done(on: serial) { _ in semaphore.signal() }
                    semaphore.wait()
                }
            }
        }
        row("Depot, \(blocks) block(s)", depot, per: iterations, baseline: dispatch1)
    }

    print("== Promise: 10,000 pending promises resolved, one block each on a concurrent queue")
    let count = 10_000
    let dispatchConcurrent = await median {
        await time {
            let group = DispatchGroup()
            for _ in 0..<count { concurrent.async(group: group) {} }
            group.wait()
        }
    }
    let taskConcurrent = await median {
        await time {
            await withTaskGroup(of: Void.self) { group in for _ in 0..<count { group.addTask {} } }
        }
    }
    let depotConcurrent = await median {
        let group = DispatchGroup()
        let pendings = (0..<count).map { _ in Promise<Int>.pending() }
        return await time {
            for pending in pendings {
                group.enter()
                pending.promise.done(on: concurrent) { _ in group.leave() }
            }
            for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
            group.wait()
        }
    }
    row("Dispatch, 10,000 concurrent (baseline)", dispatchConcurrent, per: count, baseline: dispatchConcurrent)
    row("Task group, 10,000 tasks", taskConcurrent, per: count, baseline: dispatchConcurrent)
    row("Depot, 10,000 concurrent", depotConcurrent, per: count, baseline: dispatchConcurrent)
}

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

struct MessageRepository: CRUDNetworkingRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
}

if only == nil || only == "repository" {
    let server = try await StubServer.start(threads: 2)
    server.resource("messages", objects: (1...100).map { ["id": .string(String($0)), "text": .string("message \($0)")] })
    let session = NetworkingSession(url: server.url)
    let repository = MessageRepository(store: session)
    let requests = 2_000
    let decoder = JSONDecoder()
    @Sendable func raw(_ index: Int) async throws {
        let response = try await session.send(NetworkRequest(method: .get, path: "messages/\(index % 100 + 1)", headers: ["Accept": "application/json"]))
        _ = try decoder.decode(Message.self, from: response.body)
    }
    @Sendable func viaRepository(_ index: Int) async throws {
        _ = try await repository.read(String(index % 100 + 1)).value
    }
    for _ in 0..<200 { try await raw(0); try await viaRepository(0) }  // warm up the connections

    print("== Repository read(id) vs the same GET on the raw transport (URLSession), \(requests) requests")
    let rawSequential = try await median(5) { try await time { for index in 0..<requests { try await raw(index) } } }
    let repoSequential = try await median(5) { try await time { for index in 0..<requests { try await viaRepository(index) } } }
    row("raw send + JSONDecoder, sequential (baseline)", rawSequential, per: requests, baseline: rawSequential)
    row("repository read(id), sequential", repoSequential, per: requests, baseline: rawSequential)
    func eightWay(_ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Duration {
        try await time {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<8 {
                    group.addTask { for index in stride(from: lane, to: requests, by: 8) { try await body(index) } }
                }
                try await group.waitForAll()
            }
        }
    }
    let rawConcurrent = try await median(5) { try await eightWay { try await raw($0) } }
    let repoConcurrent = try await median(5) { try await eightWay { try await viaRepository($0) } }
    row("raw send + JSONDecoder, 8-way (baseline)", rawConcurrent, per: requests, baseline: rawConcurrent)
    row("repository read(id), 8-way", repoConcurrent, per: requests, baseline: rawConcurrent)
    print(String(format: "requests/s: raw %.0f, repository %.0f sequential; raw %.0f, repository %.0f 8-way",
                 Double(requests) / rawSequential, Double(requests) / repoSequential,
                 Double(requests) / rawConcurrent, Double(requests) / repoConcurrent))
    try await server.shutdown()
}
