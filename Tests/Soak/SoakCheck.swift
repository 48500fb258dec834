import Foundation
import SoakSupport

/// `Soak --check`: the model checker. Generates programs from seeds (``CheckProgram``), runs each
/// against Depot and the reference server (``CheckRunner``), and shrinks a failing one to the
/// shortest program that still fails the same way (``CheckShrinker``), printed as the calls a
/// user would write. `--seed S` replays one program (shrunk when it fails); otherwise programs
/// run until `--seconds` are used (or `--rounds` programs ran).
enum SoakCheck {
    static func run(_ options: SoakOptions) async -> Int32 {
        let start = ContinuousClock.now
        let budget = Duration.seconds(options.seconds)
        var seed = options.seed
        var seeds = SeededGenerator(seed: options.seed)
        var ran = 0
        var failed = 0
        var kinds: [String: Int] = [:]
        var steps = 0
        while true {
            if options.seedGiven || options.rounds != nil {
                if ran >= (options.rounds ?? 1) { break }
            } else if ContinuousClock.now - start > budget {
                break
            }
            let program = CheckProgram(seed: seed, count: options.steps)
            let began = ContinuousClock.now
            let outcome = await CheckRunner.run(program)
            let took = (ContinuousClock.now - began).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            ran += 1
            steps += program.steps.count
            if outcome.violations.isEmpty {
                say("program \(ran) seed \(seed) [\(program.shape)]: \(program.steps.count) steps, \(outcome.requests) requests, \(took): ok")
            } else {
                failed += 1
                let kind = outcome.violations[0].kind
                for violation in outcome.violations { kinds[violation.kind, default: 0] += 1 }
                say("program \(ran) seed \(seed) [\(program.shape)]: \(outcome.violations.count) violations, \(took)")
                for violation in outcome.violations.prefix(8) { say("  \(violation)") }
                if options.shrinkRuns == 0 {
                    for line in outcome.log { say("    \(line)") }
                    if !options.keepGoing { break }
                    seed = seeds.next()
                    continue
                }
                let shrinker = CheckShrinker(budget: options.shrinkRuns) { await CheckRunner.run($0).violations }
                let (shrunk, violations, runs) = await shrinker.shrink(program, kind: kind)
                say("shrunk to \(shrunk.steps.count) steps in \(runs) runs (\(kind)):")
                say(CheckRender.program(shrunk))
                for violation in violations.filter({ $0.kind == kind }).prefix(4) { say("  → \(violation)") }
                let replay = await CheckRunner.run(shrunk)
                for line in replay.log { say("    \(line)") }
                if !options.keepGoing { break }
            }
            seed = seeds.next()
        }
        let summary = kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        say("model checker: \(ran) programs, \(steps) steps, \(failed) failing\(summary.isEmpty ? "" : " (\(summary))")")
        return failed == 0 ? 0 : 1
    }
}
