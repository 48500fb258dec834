extension Forwarder {
    /// The forwarder's lifecycle as a value: inputs (start, flush, wake, a pass's end, stop) go
    /// in, the actions its shell must take come out. No I/O, no clock: tested on its own.
    ///
    /// At most one pass runs at a time. A flush asked for during a pass waits for the next pass
    /// (the running one may have read the outbox before the flush's entries were written). A
    /// stop lets the running pass finish the entry in flight, then answers every waiter.
    struct StateMachine: Sendable, Hashable {
        enum Lifecycle: Sendable, Hashable {
            /// Forwards only when flushed.
            case stopped
            /// Forwards in the background: a pass whenever woken.
            case running
            /// A stop waits for the running pass to let go.
            case stopping
        }

        /// What the shell must do.
        enum Action: Sendable, Hashable {
            /// Run a pass; `everything` for a flush (entries waiting for a retry go too).
            case runPass(everything: Bool)
            /// Fulfil these flushes with the report of the pass that just ended.
            case finishFlushes([Int])
            /// Settle these flushes with the partial report: the forwarder stopped.
            case abandonFlushes([Int])
            /// Sleep until the first waiting entry is due (or the poll interval), then wake.
            case scheduleWake
            /// Cancel a scheduled wake.
            case cancelWake
            /// Return from these `stop()` calls.
            case finishStops([Int])
        }

        private(set) var lifecycle = Lifecycle.stopped
        private(set) var passRunning = false
        /// Flushes the running pass answers.
        private var flushesInPass: [Int] = []
        /// Flushes waiting for the next pass.
        private var flushesWaiting: [Int] = []
        private var stops: [Int] = []
        /// A wake came during a pass: run another when it ends.
        private var wokenDuringPass = false

        /// Whether a running pass may go on to its next entry.
        var passMayContinue: Bool { lifecycle != .stopping }

        mutating func start() -> [Action] {
            switch lifecycle {
            case .running:
                return []
            case .stopping:
                lifecycle = .running
                return []
            case .stopped:
                lifecycle = .running
                return passRunning ? [] : beginPass(everything: false)
            }
        }

        mutating func flush(_ id: Int) -> [Action] {
            if passRunning {
                flushesWaiting.append(id)
                return []
            }
            flushesInPass.append(id)
            return beginPass(everything: true)
        }

        /// A flush whose promise was cancelled no longer waits.
        mutating func forget(flush id: Int) {
            flushesWaiting.removeAll { $0 == id }
            flushesInPass.removeAll { $0 == id }
        }

        mutating func wake() -> [Action] {
            guard lifecycle == .running else { return [] }
            if passRunning {
                wokenDuringPass = true
                return []
            }
            return beginPass(everything: false)
        }

        mutating func passFinished() -> [Action] {
            passRunning = false
            var actions: [Action] = []
            if !flushesInPass.isEmpty { actions.append(.finishFlushes(flushesInPass)) }
            flushesInPass = []
            if lifecycle == .stopping {
                lifecycle = .stopped
                wokenDuringPass = false
                if !flushesWaiting.isEmpty { actions.append(.abandonFlushes(flushesWaiting)) }
                flushesWaiting = []
                actions.append(.finishStops(stops))
                stops = []
                return actions
            }
            if !flushesWaiting.isEmpty {
                flushesInPass = flushesWaiting
                flushesWaiting = []
                wokenDuringPass = false
                return actions + beginPass(everything: true)
            }
            if lifecycle == .running {
                if wokenDuringPass {
                    wokenDuringPass = false
                    return actions + beginPass(everything: false)
                }
                actions.append(.scheduleWake)
            }
            return actions
        }

        mutating func stop(_ id: Int) -> [Action] {
            if passRunning {
                lifecycle = .stopping
                stops.append(id)
                return [.cancelWake]
            }
            lifecycle = .stopped
            return [.cancelWake, .finishStops([id])]
        }

        private mutating func beginPass(everything: Bool) -> [Action] {
            passRunning = true
            return [.cancelWake, .runPass(everything: everything)]
        }
    }
}
