import DepotTesting
import SoakSupport

/// The faults the stub server injects into the requests of a round's first child (what is left of
/// them meets the restarted child): answers held back a few milliseconds after the write is
/// applied, so a kill often lands between the server applying a write and the child storing the
/// answer; and writes applied whose answer never comes (the connection closes), the hardest case.
struct FaultPlan: Sendable, CustomStringConvertible {
    /// How many milliseconds every answer is held back after the write is applied; 0 for not at all.
    var delay = 0
    /// The positions (0 for the first request the server gets) answered by applying the write and
    /// closing the connection.
    var drops: [Int] = []

    /// No fault, slow answers, dropped answers, or both: a quarter of the rounds each.
    static func random(requests: Int, using random: inout SeededGenerator) -> FaultPlan {
        var plan = FaultPlan()
        let kind = Int.random(in: 0..<4, using: &random)
        if kind == 1 || kind == 3 { plan.delay = Int.random(in: 1...8, using: &random) }
        if kind >= 2 {
            let count = Int.random(in: 1...3, using: &random)
            plan.drops = (0..<count).map { _ in Int.random(in: 0..<max(requests, 1), using: &random) }
            plan.drops = Array(Set(plan.drops)).sorted()
        }
        return plan
    }

    /// Queues the faults on `server` for its next `requests` requests.
    func inject(into server: StubServer, requests: Int) {
        guard delay > 0 || !drops.isEmpty else { return }
        var position = 0
        for drop in drops + [requests] where drop >= position {
            if drop > position { server.inject(.delay(.milliseconds(delay)), times: drop - position) }
            if drop < requests { server.inject(.applyThenDropConnection) }
            position = drop + 1
        }
    }

    /// `"answers held 3 ms, applied-then-dropped at requests 4, 17"`, or `"no faults"`.
    var description: String {
        var parts: [String] = []
        if delay > 0 { parts.append("answers held \(delay) ms") }
        if !drops.isEmpty {
            parts.append(
                "applied-then-dropped at request\(drops.count == 1 ? "" : "s") \(drops.map(String.init).joined(separator: ", "))"
            )
        }
        return parts.isEmpty ? "no faults" : parts.joined(separator: ", ")
    }
}
