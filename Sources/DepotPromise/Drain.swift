import Dispatch

/// A unit of work waiting for a promise to settle: a derived promise or a callback.
protocol Job: AnyObject, Sendable {
    /// Where the job runs; nil runs it wherever the promise settles (used for continuations).
    var queue: DispatchQueue? { get }
    /// The ``QueueIdentity`` key of ``queue``, worked out once when the job is made; 0 when
    /// `queue` is nil. Scheduling reads it instead of the queue, so posting a job costs no retain
    /// and release of the queue object (which the workers that free finished jobs release too)
    /// unless a drainer block must be submitted.
    var queueKey: UInt { get }
    /// Runs the job. Jobs it makes ready for the same queue go into `drain` instead of a new hop.
    func run(drain: inout Drain?)
}

/// A first-in, first-out list of jobs that allocates nothing while it holds one job at a time
/// (the common case: a chain of steps, a promise with one callback). Not thread-safe: its owner
/// guards it.
struct JobQueue {
    /// The oldest job, when the overflow is empty or fully taken.
    private var first: (any Job)?
    private var overflow: [(any Job)?] = []
    private var next = 0

    /// True when no job is waiting.
    var isEmpty: Bool { first == nil && next == overflow.count }

    /// How many jobs wait.
    var count: Int { (first == nil ? 0 : 1) + overflow.count - next }

    /// Adds `job` at the end.
    mutating func append(_ job: any Job) {
        if first == nil && next == overflow.count {
            first = job
        } else {
            overflow.append(job)
        }
    }

    /// Removes and returns the oldest job, or nil when empty.
    mutating func popFirst() -> (any Job)? {
        if let job = first {
            first = nil
            return job
        }
        guard next < overflow.count else { return nil }
        let job = overflow[next]
        overflow[next] = nil
        next += 1
        if next == overflow.count {
            overflow.removeAll(keepingCapacity: true)
            next = 0
        }
        return job
    }
}

/// The jobs ready to run in the current hop onto one queue. Running a job may make more ready;
/// those for the same queue run in this loop, one after the other, never by recursion, so a chain
/// of a million steps neither overflows the stack nor pays a queue hop per step.
///
/// When more than one job is ready at once (a step with several handlers), they are run from a
/// ``JobBatch`` published in the queue's ``Mailbox``, as a drainer's batch is: another drainer
/// may take the ones still waiting, so a job that blocks (waiting for a job readied with it)
/// strands none of them, and a concurrent queue runs them in parallel.
struct Drain {
    /// The ``QueueIdentity`` key of the queue this hop runs on: a job for another wrapper of the
    /// same queue joins the hop, a job for another queue is posted.
    let key: UInt
    private var ready = JobQueue()

    init(key: UInt) { self.key = key }

    /// Runs `job` now if it has no queue, in the current drain if it is for the drain's queue,
    /// or else posts it to its queue's ``Mailboxes`` (never inline: no Zalgo).
    static func schedule(_ job: any Job, in drain: inout Drain?) {
        let key = job.queueKey
        guard key != 0 else {
            job.run(drain: &drain)
            return
        }
        if drain != nil, drain!.key == key {
            drain!.ready.append(job)
        } else {
            Mailboxes.shared.post(job, key: key)
        }
    }

    /// Runs `job` and every job it makes ready for the drain's queue, in order. Jobs made ready
    /// together go into a published batch (see ``Drain``); one alone runs at once.
    static func run(_ job: any Job, in drain: inout Drain?) {
        job.run(drain: &drain)
        while let next = drain!.ready.popFirst() {
            guard !drain!.ready.isEmpty, let queue = next.queue else {
                next.run(drain: &drain)
                continue
            }
            var together: [(any Job)?] = [next]
            together.reserveCapacity(drain!.ready.count + 1)
            while let job = drain!.ready.popFirst() { together.append(job) }
            let batch = JobBatch(together)
            let key = drain!.key
            Mailboxes.shared.publish(batch, on: queue, key: key)
            // Jobs these make ready wait in `ready` until the batch is done: the order is kept.
            while let job = batch.pop() { job.run(drain: &drain) }
            Mailboxes.shared.retire(batch, key: key)
        }
    }
}

/// A plain callback on a promise's outcome.
final class Callback<Value: Sendable>: Job {
    let queue: DispatchQueue?
    let queueKey: UInt
    let source: Promise<Value>
    let body: @Sendable (Result<Value, any Error>) -> Void

    init(queue: DispatchQueue?, source: Promise<Value>, body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        self.queue = queue
        queueKey = queue.map(QueueIdentity.key) ?? 0
        self.source = source
        self.body = body
    }

    func run(drain: inout Drain?) {
        guard let result = source.result else { preconditionFailure("callback ran before its promise settled") }
        body(result)
    }
}
