import Dispatch

/// A unit of work waiting for a promise to settle: a derived promise or a callback.
protocol Job: AnyObject, Sendable {
    /// Where the job runs; nil runs it wherever the promise settles (used for continuations).
    var queue: DispatchQueue? { get }
    /// Runs the job. Jobs it makes ready for the same queue go into `drain` instead of a new hop.
    func run(drain: inout Drain?)
}

/// The jobs ready to run in the current hop onto one queue. Running a job may make more ready;
/// those for the same queue run in this loop, one after the other, never by recursion, so a chain
/// of a million steps neither overflows the stack nor pays a queue hop per step.
struct Drain {
    let queue: DispatchQueue
    private var ready: [(any Job)?] = []
    private var next = 0

    init(queue: DispatchQueue) { self.queue = queue }

    /// Runs `job` now if it has no queue, in the current drain if it is for the drain's queue,
    /// or else on its own queue in a new hop.
    static func schedule(_ job: any Job, in drain: inout Drain?) {
        guard let queue = job.queue else {
            job.run(drain: &drain)
            return
        }
        if drain != nil, drain!.queue === queue {
            drain!.ready.append(job)
        } else {
            queue.async { Drain.run(job, on: queue) }
        }
    }

    /// Runs `job` and every job it makes ready for `queue`, in order.
    static func run(_ job: any Job, on queue: DispatchQueue) {
        var drain: Drain? = Drain(queue: queue)
        job.run(drain: &drain)
        while let next = drain!.popReady() {
            next.run(drain: &drain)
        }
    }

    private mutating func popReady() -> (any Job)? {
        guard next < ready.count else { return nil }
        let job = ready[next]
        ready[next] = nil
        next += 1
        if next == ready.count {
            ready.removeAll(keepingCapacity: true)
            next = 0
        }
        return job
    }
}

/// A plain callback on a promise's outcome.
final class Callback<Value: Sendable>: Job {
    let queue: DispatchQueue?
    let source: Promise<Value>
    let body: @Sendable (Result<Value, any Error>) -> Void

    init(queue: DispatchQueue?, source: Promise<Value>, body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        self.queue = queue
        self.source = source
        self.body = body
    }

    func run(drain: inout Drain?) {
        guard let result = source.result else { preconditionFailure("callback ran before its promise settled") }
        body(result)
    }
}
