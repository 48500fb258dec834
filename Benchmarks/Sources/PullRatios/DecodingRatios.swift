import Depot
import Foundation

struct Message: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

/// Decoding a 1,000-element collection into `Codable` entities: Depot's path (readAll's) against
/// `JSONDecoder` on the same bytes.
func decodingRatios() async throws {
    let count = 1_000
    let array = JSON.array((1...count).map { ["id": .string(String($0)), "text": .string("message number \($0)")] })
    let bytes = try array.serialized()
    let rounds = 200
    print("== Decoding a \(count)-element collection (\(bytes.count) bytes) into Codable entities, \(rounds) times")
    let decoder = JSONDecoder()
    // Warm both paths (metadata, caches) before timing.
    for _ in 0..<20 {
        _ = try decoder.decode([Message].self, from: bytes)
        _ = try JSONMapping.entities(Message.self, from: bytes)
    }
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
