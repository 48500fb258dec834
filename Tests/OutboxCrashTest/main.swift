import Foundation

// The outbox crash test: see CrashTest (the parent) and ChildRole (the forwarding child); then
// the pull crash test: PullCrashTest and PullChild.

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    complain("\(error)")
    exit(64)
}
if arguments.isPullChild { exit(await PullChild.run(arguments)) }
if arguments.isServiceChild { exit(await ServiceChild.run(arguments)) }
exit(arguments.isChild ? await ChildRole.run(arguments) : await CrashTest.main(arguments))
