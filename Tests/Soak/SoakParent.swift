import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// The parent: runs rounds until the budget is used, stops at the first that breaks the model, and
/// prints a line per round and a summary with the operations and faults covered.
enum SoakParent {
    /// Runs the rounds; returns the exit status (0 when every round held).
    static func run(_ options: SoakOptions) async -> Int32 {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let start = ContinuousClock.now
        var totals = SoakTotals()
        var number = 0
        say("soak: seed \(options.seed), \(options.operations) operations a round")
        while options.rounds.map({ number < $0 }) ?? (ContinuousClock.now - start < .seconds(options.seconds)) {
            let seed = roundSeed(options.seed, number)
            number += 1
            do {
                let round = try await SoakRound(
                    seed: seed, operations: options.operations, executable: executable
                ).run()
                totals.add(round)
                say(round.line(number))
                guard round.violations.isEmpty else {
                    for violation in round.violations { complain("  VIOLATION " + violation) }
                    complain("journal:\n" + round.journal.joined(separator: "\n"))
                    complain("FAILED in round \(number): replay with `swift run Soak --rounds 1 --seed \(seed)`")
                    return 1
                }
            } catch {
                complain("round \(number) (seed \(seed)): \(error)")
                return 1
            }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        say(totals.summary(rounds: number, seconds: seconds))
        return 0
    }

    /// The seed of round `number`: the first round runs `seed` itself, so a failing round replays
    /// with `--rounds 1 --seed <its seed>`.
    static func roundSeed(_ seed: UInt64, _ number: Int) -> UInt64 {
        guard number > 0 else { return seed }
        var random = SeededGenerator(seed: seed &+ UInt64(number))
        return random.next()
    }
}

/// What all rounds covered.
struct SoakTotals {
    var operations = 0
    var failures = 0
    var kills = 0
    var requests = 0
    var faults: [String: Int] = [:]

    mutating func add(_ round: SoakRound.Report) {
        operations += round.operations
        failures += round.failures
        kills += round.killed ? 1 : 0
        requests += round.requests
        faults.merge(round.faults, uniquingKeysWith: +)
    }

    func summary(rounds: Int, seconds: Double) -> String {
        let kinds = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(rounds) rounds, \(operations) operations (\(failures) failed with a typed error), "
            + "\(requests) requests, "
            + "\(faults.values.reduce(0, +)) faults met (\(kinds)), \(kills) SIGKILLs, "
            + String(format: "%.0f s: ", seconds)
            + "0 writes applied twice, 0 lost, 0 crashes, 0 hangs"
    }
}
