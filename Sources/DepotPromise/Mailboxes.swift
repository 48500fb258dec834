import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The jobs posted to one queue from outside a hop on it, waiting for a drainer block, and the
/// batches its drainers took from it.
struct Mailbox {
    var jobs = JobQueue()
    /// True while a drainer block is submitted to the queue and has not started yet, or a drainer
    /// lingers: it will take every job posted before it starts (or looks again), so such a job
    /// needs no block of its own.
    var drainerQueued = false
    /// The batches drainers took and are running (or have run to the end and not said so yet):
    /// where a helper steals from.
    var batches: [JobBatch] = []

    /// The most jobs a drainer takes at once. A batch holds the mailbox's lock while it is filled.
    static let batchLimit = 128

    /// What a drainer gets from ``take(starting:finished:)``.
    enum Taken {
        /// Jobs to run in order; `submit` asks the caller for one more drainer block.
        case batch(JobBatch, submit: Bool)
        /// None now, but the drainer stays on as the queued drainer for a moment: jobs posted
        /// meanwhile are its, with no new block. It calls again with `starting`.
        case linger
        /// None: the drainer leaves.
        case done
    }

    /// True when no job waits and no drainer runs a batch: the mailbox can go.
    var isIdle: Bool { jobs.isEmpty && batches.isEmpty }

    /// Adds `job`; returns true when the caller must submit a drainer block.
    mutating func post(_ job: any Job) -> Bool {
        jobs.append(job)
        guard !drainerQueued else { return false }
        drainerQueued = true
        return true
    }

    /// Adds `batch`, jobs a drainer made ready together and runs itself, where a helper steals
    /// from; returns true when the caller must submit a drainer block (none is queued) to be it.
    mutating func publish(_ batch: JobBatch) -> Bool {
        batches.append(batch)
        guard !drainerQueued else { return false }
        drainerQueued = true
        return true
    }

    /// Removes `batch`, which its drainer ran to the end.
    mutating func retire(_ batch: JobBatch) {
        guard let index = batches.firstIndex(where: { $0 === batch }) else { return }
        batches.swapAt(index, batches.count - 1)
        batches.removeLast()
    }

    /// Takes a batch for a drainer (`starting` on its first call; `finished`, the batch it ran to
    /// the end): the oldest jobs posted, or else the back half of a batch another drainer is
    /// running. Asks for one more drainer while any other job waits, so a job that blocks never
    /// strands the others and a concurrent queue still runs them in parallel.
    mutating func take(starting: Bool, finished: JobBatch?, mayLinger: Bool) -> Taken {
        if starting { drainerQueued = false }
        if let finished, let index = batches.firstIndex(where: { $0 === finished }) {
            batches.swapAt(index, batches.count - 1)
            batches.removeLast()
        }
        var taken: [(any Job)?] = []
        if !jobs.isEmpty {
            taken.reserveCapacity(min(jobs.count, Self.batchLimit))  // one allocation, not one per doubling
            while taken.count < Self.batchLimit, let job = jobs.popFirst() { taken.append(job) }
        } else {
            for batch in batches {
                taken = batch.steal().jobs
                if !taken.isEmpty { break }
            }
        }
        guard !taken.isEmpty else {
            guard mayLinger, !drainerQueued else { return .done }
            drainerQueued = true
            return .linger
        }
        let othersWait = taken.count > 1 || !jobs.isEmpty || batches.contains { $0.hasWaiting }
        let batch = JobBatch(taken)
        batches.append(batch)
        guard othersWait, !drainerQueued else { return .batch(batch, submit: false) }
        drainerQueued = true
        return .batch(batch, submit: true)
    }
}

/// Hops onto queues without a dispatch block per job. Jobs posted to a queue wait in its
/// ``Mailbox``; one drainer block, submitted when the first of them arrives, runs every job posted
/// before it starts, in order. So promises that settle together toward one queue (10,000 resolved
/// in a loop) cost a handful of blocks, not one each, while a lone job still costs one block.
/// A drainer takes the waiting jobs in a ``JobBatch`` (up to ``Mailbox/batchLimit``), so the lock
/// the settling threads post through is taken once per batch, not once per job; and it lingers a
/// moment when none is left, so a stream of posts does not wake a new block per gap.
///
/// Order: jobs posted to a queue run in the order they were posted (a serial queue runs one
/// drainer at a time). A job may run in a drainer submitted before it was posted, so ahead of
/// blocks submitted to the queue directly in between — as consecutive steps in one hop already do.
final class Mailboxes: Sendable {
    /// A share of the mailboxes, picked by the queue's key, behind one lock.
    private final class Stripe: @unchecked Sendable {  // @unchecked: `lock` guards `boxes`
        let lock = Lock(spinning: true)
        /// Keyed by ``QueueIdentity``, so every wrapper of one queue (on Linux, each access to
        /// `DispatchQueue.main` makes one) shares one mailbox and one order. Present while jobs
        /// wait or a drainer runs; the jobs and drainers hold the queue, so its key is not reused
        /// while its entry exists. A short list searched by identity: a stripe holds the few
        /// queues in use at once, and a dictionary would hash on every job. `lock` spins a little
        /// before sleeping: it is held for a few instructions, by a settling thread and drainers.
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

        /// Publishes `batch` in the mailbox of `queue`, making it if needed; true when a drainer
        /// must be submitted. Call with `lock` held.
        func publish(_ batch: JobBatch, to queue: UInt) -> Bool {
            if let index = boxes.firstIndex(where: { $0.queue == queue }) { return boxes[index].box.publish(batch) }
            var box = Mailbox()
            let submit = box.publish(batch)
            boxes.append((queue, box))
            return submit
        }

        /// Retires `batch` from the mailbox of `queue`; drops the mailbox once it is idle and no
        /// drainer is queued for it. Call with `lock` held.
        func retire(_ batch: JobBatch, from queue: UInt) {
            guard let index = boxes.firstIndex(where: { $0.queue == queue }) else { return }
            boxes[index].box.retire(batch)
            if boxes[index].box.isIdle && !boxes[index].box.drainerQueued {
                boxes.swapAt(index, boxes.count - 1)
                boxes.removeLast()
            }
        }

        /// Takes the next batch for a drainer of `queue`; drops the mailbox once it is idle. Call
        /// with `lock` held.
        func take(from queue: UInt, starting: Bool, finished: JobBatch?, mayLinger: Bool) -> Mailbox.Taken {
            guard let index = boxes.firstIndex(where: { $0.queue == queue }) else { return .done }
            let taken = boxes[index].box.take(starting: starting, finished: finished, mayLinger: mayLinger)
            if case .done = taken, boxes[index].box.isIdle {
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

    /// Posts `job` to run on its queue (whose key is `key`), never inline. The queue object is read
    /// only when a drainer block must be submitted; the caller's reference keeps `job` alive.
    func post(_ job: any Job, key: UInt) {
        let stripe = stripe(for: key)
        let submit = stripe.lock.withLock { stripe.post(job, to: key) }
        guard submit, let queue = job.queue else { return }
        queue.async { Mailboxes.shared.drain(queue, key: key) }
    }

    /// Publishes `batch`, jobs for `queue` (whose key is `key`) that a drainer made ready together
    /// and runs itself, so that another drainer, submitted now if none is queued, may take those
    /// still waiting (see ``Drain``). The drainer ``retire(_:key:)``s it once it ran to the end.
    func publish(_ batch: JobBatch, on queue: DispatchQueue, key: UInt) {
        let stripe = stripe(for: key)
        guard stripe.lock.withLock({ stripe.publish(batch, to: key) }) else { return }
        queue.async { Mailboxes.shared.drain(queue, key: key) }
    }

    /// Removes `batch`, published by ``publish(_:on:key:)``, once its drainer ran it to the end.
    func retire(_ batch: JobBatch, key: UInt) {
        let stripe = stripe(for: key)
        stripe.lock.withLock { stripe.retire(batch, from: key) }
    }

    /// A drainer block: runs, on `queue`, batches of the jobs posted to it until none is left,
    /// each job with the jobs it makes ready for `queue` (see ``Drain``).
    private func drain(_ queue: DispatchQueue, key: UInt) {
        let stripe = stripe(for: key)
        var drain: Drain? = Drain(key: key)
        var starting = true
        var finished: JobBatch? = nil
        var idle = 0
        while true {
            let taken = stripe.lock.withLock {
                stripe.take(from: key, starting: starting, finished: finished, mayLinger: idle < Self.lingerRounds)
            }
            finished = nil
            switch taken {
            case .done:
                return
            case .linger:
                idle += 1
                starting = true
                sched_yield()
            case .batch(let batch, let submit):
                idle = 0
                starting = false
                if submit { queue.async { Mailboxes.shared.drain(queue, key: key) } }
                while let job = batch.pop() { Drain.run(job, in: &drain) }
                finished = batch
            }
        }
    }

    /// How many times a drainer that found its mailbox empty yields its thread and looks again
    /// before it leaves. Promises settled in a loop (10,000 resolved one after the other) post
    /// about as fast as drainers run them: a drainer that left at each gap would cost a new block
    /// and a thread wake-up per gap, and take its jobs one or two at a time.
    static let lingerRounds = 8
}
