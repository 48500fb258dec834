import Foundation

// The figures a shared process would skew, each measured in a process of its own: a 1,000,000-entity
// pull (each side, raw and Depot, in a child process, so its peak resident size is its own) and
// decoding a collection. Depends on neither DepotPostgres nor AsyncHTTPClient, so a release build
// compiles swift-nio and GRDB only.
//   swift run -c release PullRatios [pull|pull-prune|decoding] [entity count, for the pulls]
//   (no argument: decoding, then pull)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "child" {
    // One side of a pull, started by `pull`: prints its figures on one line for the parent.
    exit(await runPullChild(Array(arguments.dropFirst())))
}
let sections = ["decoding", "pull", "pull-prune"]
let only = arguments.first
if let only, !sections.contains(only) {
    print("usage: PullRatios [\(sections.joined(separator: "|"))] [entity count]")
    exit(2)
}
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
print("PullRatios — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
if only == nil || only == "decoding" { try await decodingRatios() }
if only == nil || only == "pull" { try await pullRatios(prune: false, count: count) }
if only == "pull-prune" { try await pullRatios(prune: true, count: count) }
