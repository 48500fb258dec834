import Foundation

// Prints every figure as a ratio against a baseline measured in the same run, same process.
//   swift run -c release Ratios [promise|transport|decoding|storage|sync-push|sync-pull|sync-pull-prune|sync-incremental|outbox|outbox-record|stub-server|cache] [entity count, for the sync-pull and cache sections]
//   (PostgreSQL: its own executable, `swift run -c release PostgresRatios`, so this one never builds postgres-nio)

let sections = [
    "promise", "transport", "decoding", "storage", "sync-push", "sync-pull", "sync-pull-prune", "sync-incremental",
    "outbox",
    "outbox-record", "stub-server", "cache",
]
let only = CommandLine.arguments.dropFirst().first
let count = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }
if let only, !sections.contains(only) {
    print("usage: Ratios [\(sections.joined(separator: "|"))]   (no argument: every section but sync-pull-prune)")
    exit(2)
}
print("Ratios — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
if only == nil || only == "promise" { await promiseRatios() }
if only == nil || only == "transport" { try await transportRatios() }
if only == nil || only == "decoding" { try await decodingRatios() }
if only == nil || only == "storage" { try await storageRatios() }
if only == nil || only == "sync-push" { try await syncPushRatios() }
if only == nil || only == "sync-pull" { try await syncPullRatios(count: count ?? 1_000_000) }
if only == "sync-pull-prune" { try await syncPullRatios(prune: true, count: count ?? 1_000_000) }
if only == nil || only == "sync-incremental" { try await syncIncrementalRatios(count: count ?? 100_000) }
if only == nil || only == "outbox" { try await outboxRatios() }
if only == nil || only == "outbox-record" { try await outboxRecordRatios() }
if only == nil || only == "stub-server" { try await stubServerRatios() }
if only == nil || only == "cache" { try await cacheRatios(count: count ?? 1_000) }
