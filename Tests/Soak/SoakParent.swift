import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

/// The parent: runs rounds until the budget is used, stops at the first that breaks the model
/// (unless `--keep-going`), and
/// prints a line per round and a summary with the operations and faults covered, in all and per
/// mode.
enum SoakParent {
    /// Runs the rounds; returns the exit status (0 when every round held).
    static func run(_ options: SoakOptions) async -> Int32 {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let start = ContinuousClock.now
        var totals = SoakTotals()
        var number = 0
        var failed: [String] = []
        say(
            "soak: seed \(options.seed), \(options.operations) operations a round, modes "
                + (options.modes.map { "\($0)" } ?? "drawn per round"))
        while options.rounds.map({ number < $0 }) ?? (ContinuousClock.now - start < .seconds(options.seconds)) {
            let seed = roundSeed(options.seed, number)
            number += 1
            do {
                let modes = options.modes ?? SoakModes(seed: seed)
                let round = try await SoakRound(
                    seed: seed, operations: options.operations, executable: executable, modes: modes
                ).run()
                totals.add(round)
                say(round.line(number))
                guard round.violations.isEmpty else {
                    for violation in round.violations { complain("  VIOLATION " + violation) }
                    complain("journal:\n" + round.journal.joined(separator: "\n"))
                    complain("server trace:\n" + round.trace.joined(separator: "\n"))
                    complain(
                        "FAILED in round \(number) [\(modes)]: replay with "
                            + "`swift run Soak --rounds 1 --seed \(seed)\(options.modes.map { " --modes \($0)" } ?? "")`"
                    )
                    failed.append("\(seed) [\(modes)]")
                    if options.keepGoing { continue }
                    say(totals.summary(rounds: number, seconds: elapsed(since: start)))
                    return 1
                }
            } catch {
                complain("round \(number) (seed \(seed)): \(error)")
                return 1
            }
        }
        say(totals.summary(rounds: number, seconds: elapsed(since: start)))
        if !failed.isEmpty { complain("FAILED rounds (seed [modes]): " + failed.joined(separator: ", ")) }
        return failed.isEmpty ? 0 : 1
    }

    /// The seconds since `start`.
    static func elapsed(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The seed of round `number`: the first round runs `seed` itself, so a failing round replays
    /// with `--rounds 1 --seed <its seed>`.
    static func roundSeed(_ seed: UInt64, _ number: Int) -> UInt64 {
        guard number > 0 else { return seed }
        var random = SeededGenerator(seed: seed &+ UInt64(number))
        return random.next()
    }
}

/// What all rounds covered, in all and per mode.
struct SoakTotals {
    /// The figures of a set of rounds.
    struct Figures {
        var rounds = 0
        var operations = 0
        var failures = 0
        var kills = 0
        var requests = 0
        var faults = 0
        var restarts = 0
        var extraApplies = 0
        var violations = 0

        mutating func add(_ round: SoakRound.Report) {
            rounds += 1
            operations += round.operations
            failures += round.failures
            kills += round.killed ? 1 : 0
            requests += round.requests
            faults += round.faults.values.reduce(0, +)
            restarts += round.restarts
            extraApplies += round.extraApplies
            violations += round.violations.count
        }
    }

    var all = Figures()
    var modes: [String: Figures] = [:]
    var faults: [String: Int] = [:]

    mutating func add(_ round: SoakRound.Report) {
        all.add(round)
        for name in round.modes.active.isEmpty ? ["classic"] : round.modes.active {
            modes[name, default: .init()].add(round)
        }
        faults.merge(round.faults, uniquingKeysWith: +)
    }

    func summary(rounds: Int, seconds: Double) -> String {
        let kinds = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let perMode = (["classic"] + SoakModes.names).compactMap { name -> String? in
            guard let figures = modes[name] else { return nil }
            return "  \(name): \(figures.rounds) rounds, \(figures.operations) operations, \(figures.faults) faults, "
                + "\(figures.kills) SIGKILLs, \(figures.restarts) forwarder restarts, "
                + "\(figures.extraApplies) applied again (keys ignored), \(figures.violations) violations"
        }
        return "\(rounds) rounds, \(all.operations) operations (\(all.failures) failed with a typed error), "
            + "\(all.requests) requests, "
            + "\(all.faults) faults met (\(kinds)), \(all.kills) SIGKILLs, \(all.restarts) forwarder restarts, "
            + String(format: "%.0f s: ", seconds)
            + "\(all.violations) violations"
            + (all.violations == 0 ? " (0 writes applied twice, 0 lost, 0 crashes, 0 hangs)" : "")
            + "\nper mode (a round counts under each of its modes):\n" + perMode.joined(separator: "\n")
    }
}
