/// What one round did and found, and its line of output.
struct RoundReport: Sendable {
    /// 1, 2, …
    var number = 0
    /// The writes before the first child.
    var writes = Workload.Counts()
    /// The outbox entries those writes left (coalescing folds many writes into one).
    var entries = 0
    /// The faults injected.
    var faults = FaultPlan()
    /// The forwarders' `maximumConcurrency`: the first child's and the restarted child's.
    var concurrency = (first: 1, restart: 1)
    /// How long after `started` the kill was sent; nil when the child finished first.
    var killedAfter: Duration?
    /// Whether the kill found the child still forwarding.
    var killedMidForward = false
    /// The snapshots of the outbox.
    var snapshots = OutboxSnapshots()
    /// The writes between the kill and the restart.
    var laterWrites = Workload.Counts()
    /// How long the restarted child took to empty the outbox.
    var restart: Duration = .zero
    /// How many writes the server answered from its idempotency record instead of applying them.
    var replayed = 0
    /// What the check found.
    var check = RoundCheck()

    /// The round's line: `round 3: 200 writes → 131 entries (no faults), killed after 37 ms
    /// mid-forward (12 delivered before the kill), …: 0 lost, 0 applied twice`.
    var line: String {
        let kill =
            killedAfter.map {
                "killed after \(Self.milliseconds($0)) ms \(killedMidForward ? "mid-forward" : "after forwarding")"
                    + " (\(snapshots.deliveredBeforeKill.count) delivered before the kill)"
            } ?? "not killed: the child finished first"
        let parallel = concurrency == (1, 1) ? "" : ", concurrency \(concurrency.first)/\(concurrency.restart)"
        return "round \(number): \(writes.total) writes → \(entries) entries (\(faults)\(parallel)), \(kill),"
            + " \(laterWrites.total) more writes, restart sent \(snapshots.beforeRestart.count) in"
            + " \(Self.milliseconds(restart)) ms, \(replayed) replayed by key:"
            + " \(check.lost.count) lost, \(check.appliedTwice.count) applied twice"
            + (check.deletesNotApplied > 0 ? ", \(check.deletesNotApplied) deletes answered 404" : "")
    }

    /// The findings, a few of each kind, for a failed round.
    var failure: String {
        let findings =
            check.lost.prefix(10).map { "  lost: \($0)" } + check.appliedTwice.prefix(10).map { "  twice: \($0)" }
            + check.problems.prefix(10).map { "  problem: \($0)" }
        return "round \(number) failed (writes: \(writes); later writes: \(laterWrites)):\n"
            + findings.joined(separator: "\n")
    }

    /// Whole milliseconds of `duration`.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
