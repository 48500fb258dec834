import Foundation

// Prints every figure as a ratio against a baseline measured in the same run, same process.
//   swift run -c release Ratios [promise|transport|decoding|storage|sync-push|sync-pull|sync-pull-prune]

let only = CommandLine.arguments.dropFirst().first
print("Ratios — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
if only == nil || only == "promise" { await promiseRatios() }
if only == nil || only == "transport" { try await transportRatios() }
if only == nil || only == "decoding" { try await decodingRatios() }
if only == nil || only == "storage" { try await storageRatios() }
if only == nil || only == "sync-push" { try await syncPushRatios() }
if only == nil || only == "sync-pull" { try await syncPullRatios() }
if only == "sync-pull-prune" { try await syncPullRatios(prune: true) }
