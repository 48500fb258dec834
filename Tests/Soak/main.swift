import Depot
import DepotSQLite
import DepotTesting
import Foundation
import SoakSupport

// The fault-injection soak: rounds of a seeded random workload in a child process, against a stub
// server that injects seeded faults, the child SIGKILLed at a random moment (or left to finish), then
// the outbox forwarded with no faults and the result judged by SoakModel. See SoakRound.
// `Soak --volume N` instead forwards N queued writes on both stores and judges them (SoakVolume).

let options: SoakOptions
do {
    options = try SoakOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    complain("\(error)")
    exit(64)
}
if let volume = options.volume { exit(await SoakVolume.run(count: volume)) }
if options.check { exit(await SoakCheck.run(options)) }
exit(options.isChild ? await SoakChild.run(options) : await SoakParent.run(options))
