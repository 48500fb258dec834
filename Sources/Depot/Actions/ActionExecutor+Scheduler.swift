extension ActionExecutor {
    /// Which submitted actions may start: a value, tested without threads. It keeps the pending
    /// queue in submission order, the concurrency limit, the serialization keys in use, the
    /// suspension and the shutdown.
    struct Scheduler: Sendable {
        struct Job: Sendable, Hashable {
            let id: ActionID
            let key: String?
        }

        let maxConcurrent: Int
        private(set) var pending: [Job] = []
        private(set) var running: [ActionID: String?] = [:]
        private(set) var activeKeys: Set<String> = []
        private(set) var isSuspended = false
        private(set) var isShuttingDown = false

        init(maxConcurrent: Int) {
            precondition(maxConcurrent >= 1, "an executor runs at least one action at a time")
            self.maxConcurrent = maxConcurrent
        }

        /// Nothing pending and nothing running.
        var isIdle: Bool { pending.isEmpty && running.isEmpty }

        /// Queues a job; false once shutting down (the job is refused).
        mutating func submit(_ job: Job) -> Bool {
            guard !isShuttingDown else { return false }
            pending.append(job)
            return true
        }

        /// Takes the jobs that may start now, in submission order, and counts them as running.
        /// A job waits while its key is in use; later jobs without that key go ahead of it.
        mutating func next() -> [ActionID] {
            guard !isSuspended, running.count < maxConcurrent, !pending.isEmpty else { return [] }
            var started: [ActionID] = []
            var waiting: [Job] = []
            var index = 0
            while index < pending.count, running.count < maxConcurrent {
                let job = pending[index]
                index += 1
                if let key = job.key {
                    if activeKeys.contains(key) {
                        waiting.append(job)
                        continue
                    }
                    activeKeys.insert(key)
                }
                running[job.id] = job.key
                started.append(job.id)
            }
            if !started.isEmpty { pending = waiting + pending[index...] }
            return started
        }

        /// A job that had started ended (or was skipped): frees its slot and its key.
        mutating func finished(_ id: ActionID) {
            guard let key = running.removeValue(forKey: id) else { return }
            if let key { activeKeys.remove(key) }
        }

        /// Drops a job cancelled before it started; false when it was not pending.
        mutating func removePending(_ id: ActionID) -> Bool {
            guard let index = pending.firstIndex(where: { $0.id == id }) else { return false }
            pending.remove(at: index)
            return true
        }

        /// No job starts until ``resume()``.
        mutating func suspend() { isSuspended = true }

        /// Jobs start again.
        mutating func resume() { isSuspended = false }

        /// Refuses new jobs. Returns the pending jobs to cancel when `cancelPending`; otherwise
        /// they still run, and a suspension ends so that they can.
        mutating func shutdown(cancelPending: Bool) -> [ActionID] {
            isShuttingDown = true
            isSuspended = false
            guard cancelPending else { return [] }
            defer { pending = [] }
            return pending.map(\.id)
        }
    }
}
