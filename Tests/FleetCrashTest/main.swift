import Foundation

// The fleet crash test: see FleetCrash (the parent), FleetChild (a forwarding replica) and
// FleetThroughput (`--throughput`: forwarding rates with 1, 2 and 3 replicas).

let arguments: FleetArguments
do {
    arguments = try FleetArguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    complain("\(error)")
    exit(64)
}
if arguments.isChild { exit(await FleetChild.run(arguments)) }
exit(arguments.throughput ? await FleetThroughput.main(arguments) : await FleetCrash.main(arguments))
