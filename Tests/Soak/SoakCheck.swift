import Depot
import Foundation
import SoakSupport

#if Postgres
    import DepotPostgres
#endif

/// `Soak --check`: the model checker. Generates programs from seeds (``CheckProgram``), runs each
/// against Depot and the reference server (``CheckRunner``), and shrinks a failing one to the
/// shortest program that still fails the same way (``CheckShrinker``), printed as the calls a
/// user would write and as a regression case. `--seed S` replays one program (shrunk when it
/// fails); otherwise programs run until `--seconds` are used (or `--rounds` programs ran).
/// Violations of a `--known` kind (an open issue's) are counted and the first of each kind is
/// shrunk, but they do not fail the run; any other kind does.
enum SoakCheck {
    static func run(_ options: SoakOptions) async -> Int32 {
        let store = options.store.flatMap(postgres)
        if options.store != nil {
            guard store != nil else {
                say(
                    "--store postgres: needs a build with the Postgres trait: swift run --traits Postgres Soak --check …"
                )
                return 64
            }
            say("model checker: the SQLite rounds run on PostgreSQL (a schema per round)")
        }
        let start = ContinuousClock.now
        let deadline = start + .seconds(options.seconds)
        var seeds = SeededGenerator(seed: options.seed)
        var seed = options.seed
        var ran = 0
        var failed = 0
        var kinds: [String: Int] = [:]
        var shrunkKinds: Set<String> = []
        var steps = 0
        while true {
            if (options.seedGiven && !options.secondsGiven) || options.rounds != nil {
                if ran >= (options.rounds ?? 1) { break }
            } else if ContinuousClock.now > deadline {
                break
            }
            let program = CheckProgram(seed: seed, count: options.steps)
            let began = ContinuousClock.now
            let outcome = await CheckRunner.run(program, store: store)
            let took = (ContinuousClock.now - began).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            ran += 1
            steps += program.steps.count
            defer { seed = seeds.next() }
            guard let first = outcome.violations.first else {
                say(
                    "program \(ran) seed \(seed) [\(program.shape)]: \(program.steps.count) steps, \(outcome.requests) requests, \(took): ok"
                )
                continue
            }
            for kind in Set(outcome.violations.map(\.kind)) { kinds[kind, default: 0] += 1 }
            let unknown = outcome.violations.first { !options.known.contains($0.kind) }
            if unknown != nil { failed += 1 }
            let kind = (unknown ?? first).kind
            say(
                "program \(ran) seed \(seed) [\(program.shape)]: \(outcome.violations.count) violations\(unknown == nil ? " (known)" : ""), \(took)"
            )
            for violation in outcome.violations.prefix(8) { say("  \(violation)") }
            if options.shrinkRuns == 0 || shrunkKinds.contains(kind) {
                if options.shrinkRuns == 0 { for line in outcome.log { say("    \(line)") } }
                if unknown != nil, !options.keepGoing { break }
                continue
            }
            shrunkKinds.insert(kind)
            let shrinker = CheckShrinker(
                budget: options.shrinkRuns, deadline: options.secondsGiven ? deadline + .seconds(60) : nil
            ) {
                await CheckRunner.run($0, store: store).violations
            }
            let (shrunk, violations, runs) = await shrinker.shrink(program, kind: kind)
            say("shrunk to \(shrunk.steps.count) steps in \(runs) runs (\(kind)):")
            say(CheckRender.program(shrunk))
            for violation in violations.filter({ $0.kind == kind }).prefix(4) { say("  → \(violation)") }
            let replay = await CheckRunner.run(shrunk, store: store)
            for line in replay.log { say("    \(line)") }
            say("as a regression case:")
            say(CheckRender.literal(shrunk))
            if unknown != nil, !options.keepGoing { break }
        }
        let summary = kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        say(
            "model checker: \(ran) programs, \(steps) steps, \(failed) failing"
                + (summary.isEmpty ? "" : "; programs per violation kind: \(summary)")
                + (options.known.isEmpty
                    ? "" : "; known (open issues): \(options.known.sorted().joined(separator: ", "))"))
        return failed == 0 ? 0 : 1
    }

    /// The checker's store on the PostgreSQL database at `url`: a schema per round, erased after
    /// it; nil in a build without the Postgres trait.
    static func postgres(_ url: String) -> CheckStore? {
        #if Postgres
            CheckStore(
                open: { name in try await PostgresStorage.open(url: url, schema: name) },
                close: { opened, _ in
                    let stores = opened.compactMap { $0 as? PostgresStorage }
                    // The last one erases the round's schema; the others only close.
                    for store in stores.dropLast() { await store.close() }
                    if let last = stores.last { try? await last.erase(force: true) }
                })
        #else
            _ = url
            return nil
        #endif
    }
}
