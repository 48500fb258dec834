import Foundation

// The outbox crash test: see CrashTest (the parent) and ChildRole (the forwarding child).

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    complain("\(error)")
    exit(64)
}
exit(arguments.isChild ? await ChildRole.run(arguments) : await CrashTest.main(arguments))
