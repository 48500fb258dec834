import Dispatch

/// The jobs posted to one queue from outside a hop on it, waiting for a drainer block.
struct Mailbox {
    var jobs = JobQueue()
    /// True while a drainer block is submitted to the queue and has not started yet: it will take
    /// every job posted before it starts, so such a job needs no block of its own.
    var drainerQueued = false

    /// Adds `job`; returns true when the caller must submit a drainer block.
    mutating func post(_ job: any Job) -> Bool {
        jobs.append(job)
        guard !drainerQueued else { return false }
        drainerQueued = true
        return true
    }

    /// Takes the oldest job for a drainer (`starting` on its first call). Asks for one more drainer
    /// when jobs are left and none is queued, so a job that blocks never strands the others and a
    /// concurrent queue still runs them in parallel.
    mutating func take(starting: Bool) -> (job: (any Job)?, submit: Bool) {
        if starting { drainerQueued = false }
        guard let job = jobs.popFirst() else { return (nil, false) }
        guard !jobs.isEmpty, !drainerQueued else { return (job, false) }
        drainerQueued = true
        return (job, true)
    }
}

/// Hops onto queues without a dispatch block per job. Jobs posted to a queue wait in its
/// ``Mailbox``; one drainer block, submitted when the first of them arrives, runs every job posted
/// before it starts, in order. So promises that settle together toward one queue (10,000 resolved
/// in a loop) cost a handful of blocks, not one each, while a lone job still costs one block.
///
/// Order: jobs posted to a queue run in the order they were posted (a serial queue runs one
/// drainer at a time). A job may run in a drainer submitted before it was posted, so ahead of
/// blocks submitted to the queue directly in between — as consecutive steps in one hop already do.
final class Mailboxes: Sendable {
    /// A share of the mailboxes, picked by the queue's key, behind one lock.
    private final class Stripe: @unchecked Sendable {  // @unchecked: `lock` guards `boxes`
        let lock = Lock()
        /// Keyed by ``QueueIdentity``, so every wrapper of one queue (on Linux, each access to
        /// `DispatchQueue.main` makes one) shares one mailbox and one order. Present while jobs
        /// wait or a drainer runs; the jobs and drainers hold the queue, so its key is not reused
        /// while its entry exists. A short list searched by identity: a
        /// stripe holds the few queues in use at once, and a dictionary would hash on every job.
        var boxes: [(queue: UInt, box: Mailbox)] = []

        /// Posts `job` to the queue's mailbox, making it if needed; true when a drainer must be
        /// submitted. Call with `lock` held.
        func post(_ job: any Job, to queue: UInt) -> Bool {
            if let index = boxes.firstIndex(where: { $0.queue == queue }) { return boxes[index].box.post(job) }
            var box = Mailbox()
            let submit = box.post(job)
            boxes.append((queue, box))
            return submit
        }

        /// Takes the next job for a drainer of `queue`; drops the mailbox once it is empty. Call
        /// with `lock` held.
        func take(from queue: UInt, starting: Bool) -> (job: (any Job)?, submit: Bool) {
            guard let index = boxes.firstIndex(where: { $0.queue == queue }) else { return (nil, false) }
            let taken = boxes[index].box.take(starting: starting)
            if taken.job == nil {
                boxes.swapAt(index, boxes.count - 1)
                boxes.removeLast()
            }
            return taken
        }
    }

    private let stripes: [Stripe]

    private init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "stripe count must be a power of two")
        stripes = (0..<count).map { _ in Stripe() }
    }

    /// The mailboxes every promise posts to.
    static let shared = Mailboxes(count: 16)

    private func stripe(for address: UInt) -> Stripe {
        return stripes[Int(((address >> 4) ^ (address >> 10)) & UInt(stripes.count - 1))]
    }

    /// Posts `job` to run on `queue`, never inline.
    func post(_ job: any Job, to queue: DispatchQueue, key: UInt) {
        let stripe = stripe(for: key)
        let submit = stripe.lock.withLock { stripe.post(job, to: key) }
        if submit { queue.async { Mailboxes.shared.drain(queue, key: key) } }
    }

    /// A drainer block: runs, on `queue`, the jobs posted to it until none is left, each with the
    /// jobs it makes ready for `queue` (see ``Drain``).
    private func drain(_ queue: DispatchQueue, key: UInt) {
        let stripe = stripe(for: key)
        var drain: Drain? = Drain(key: key)
        var starting = true
        while true {
            let taken = stripe.lock.withLock { stripe.take(from: key, starting: starting) }
            starting = false
            guard let job = taken.job else { return }
            if taken.submit { queue.async { Mailboxes.shared.drain(queue, key: key) } }
            Drain.run(job, in: &drain)
        }
    }
}
