import Depot
import Foundation

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Decoding a 1,000-element collection into `Codable` entities: Depot's path (readAll's) against
/// `JSONDecoder` on the same bytes. Single-threaded and CPU-bound, so each side is timed in this
/// thread's CPU time, rounds taken in turn (baseline, Depot, Depot unwrapping): other processes on
/// the machine slow the wall clock of both sides, not their ratio.
func decodingRatios() async throws {
    let count = 1_000
    let array = JSON.array((1...count).map { ["id": .string(String($0)), "text": .string("message number \($0)")] })
    let bytes = try array.serialized()
    let enveloped = try JSON.object(["resources": array]).serialized()
    let rounds = 200
    print(
        "== Decoding a \(count)-element collection (\(bytes.count) bytes) into Codable entities, \(rounds) times "
            + "(thread CPU time, median of 15 rounds taken in turn)")
    let decoder = JSONDecoder()
    // Warm both paths (metadata, caches) before timing.
    for _ in 0..<20 {
        _ = try decoder.decode([Message].self, from: bytes)
        _ = try JSONMapping.entities(Message.self, from: bytes)
    }
    var samples: [[Double]] = [[], [], []]
    for _ in 0..<15 {
        samples[0].append(try cpuTime { for _ in 0..<rounds { _ = try decoder.decode([Message].self, from: bytes) } })
        samples[1].append(
            try cpuTime { for _ in 0..<rounds { _ = try JSONMapping.entities(Message.self, from: bytes) } })
        samples[2].append(
            try cpuTime {
                for _ in 0..<rounds {
                    _ = try JSONMapping.entities(Message.self, from: enveloped, envelope: "resources")
                }
            })
    }
    let (direct, mapped, unwrapped) = (median(of: samples[0]), median(of: samples[1]), median(of: samples[2]))
    row("JSONDecoder, [Message] (baseline)", direct, per: rounds, baseline: direct)
    row("Depot JSONMapping.entities (readAll's path)", mapped, per: rounds, baseline: direct)
    row("Depot, unwrapping {\"resources\": […]}", unwrapped, per: rounds, baseline: direct)
}
