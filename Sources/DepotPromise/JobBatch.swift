/// Jobs a drainer took from its queue's ``Mailbox`` in one go, so it pays the mailbox's lock (the
/// one every settling thread posts through) once per batch instead of once per job.
///
/// The owner runs them one by one, in order, taking each under the batch's own lock, which nobody
/// else wants unless a helper drainer steals. A helper that finds the mailbox empty steals the
/// back half of a batch, so a job that blocks strands none of the jobs taken with it, and a
/// concurrent queue still runs them in parallel. On a serial queue no helper runs beside the
/// owner, so nothing is stolen and the jobs run in the order they were posted.
final class JobBatch: @unchecked Sendable {  // @unchecked: `lock` guards `jobs` and `next`
    private let lock = Lock()
    private var jobs: [(any Job)?]
    /// The next job the owner runs; jobs from `next` to the end are waiting.
    private var next = 0

    /// Makes a batch of `jobs`, oldest first.
    init(_ jobs: [(any Job)?]) { self.jobs = jobs }

    /// The owner's next job, or nil when none is left.
    func pop() -> (any Job)? {
        lock.withLock {
            guard next < jobs.count else { return nil }
            defer { next += 1 }
            return jobs[next].take()
        }
    }

    /// Takes the back half of the waiting jobs (at least one, if any wait), oldest first, and how
    /// many are left to the owner.
    func steal() -> (jobs: [(any Job)?], left: Int) {
        lock.withLock {
            let waiting = jobs.count - next
            guard waiting > 0 else { return ([], 0) }
            let split = jobs.count - (waiting + 1) / 2
            let stolen = Array(jobs[split...])
            jobs.removeSubrange(split...)
            return (stolen, split - next)
        }
    }

    /// True while jobs wait for the owner or a thief.
    var hasWaiting: Bool { lock.withLock { next < jobs.count } }
}
