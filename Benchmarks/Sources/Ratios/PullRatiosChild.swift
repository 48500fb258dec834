import Foundation

// The decoding and pull sections live in PullRatios (Sources/PullRatios): the pull runs each side
// in a process of its own, so its peak resident size is the pull's, not this process's.

/// Runs the PullRatios executable built beside this one with `arguments`, its output shown as is;
/// says how to build it when it is not there.
func runPullRatios(_ arguments: [String]) throws {
    let executable = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
        .deletingLastPathComponent().appendingPathComponent("PullRatios")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
        let section = arguments.joined(separator: " ")
        print("== \(section): in PullRatios (`swift run -c release PullRatios`), not built beside Ratios")
        return
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    fflush(nil)  // this process's lines first (every stream: `stdout` is a shared var on Linux)
    try process.run()
    process.waitUntilExit()
}
