extension Forwarder {
    /// The forwarder's lifecycle as a value: inputs (start, flush, wake, a pass's end, stop) go
    /// in, the actions its shell must take come out. No I/O, no clock: tested on its own.
    ///
    /// At most one pass runs at a time. A flush asked for during a pass waits for the next pass
    /// (the running one may have read the outbox before the flush's entries were written). A
    /// stop lets the running pass finish the entry in flight, then answers every waiter.
    ///
    /// Every stop is answered, whatever comes between it and the pass's end: a start while a pass
    /// is stopping does not take the stop back. The pass still stops after its entry in flight,
    /// the waiting stops are answered, and then the forwarder runs again (a new pass at once; the
    /// flushes that were waiting go with it instead of being abandoned). A stop after that start
    /// cancels the restart again. The last of start and stop wins; no caller is left waiting.
    struct StateMachine: Sendable, Hashable {
        enum Lifecycle: Sendable, Hashable {
            /// Forwards only when flushed.
            case stopped
            /// Forwards in the background: a pass whenever woken.
            case running
            /// A stop waits for the running pass to let go; `restart` when a start came since, so
            /// the forwarder runs again once the stops are answered.
            case stopping(restart: Bool)
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
        var passMayContinue: Bool {
            if case .stopping = lifecycle { return false }
            return true
        }

        mutating func start() -> [Action] {
            switch lifecycle {
            case .running:
                return []
            case .stopping:
                // The waiting stops are answered when the pass ends; then it runs again.
                lifecycle = .stopping(restart: true)
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
            if case .stopping(let restart) = lifecycle {
                wokenDuringPass = false
                defer { stops = [] }
                guard restart else {
                    lifecycle = .stopped
                    if !flushesWaiting.isEmpty { actions.append(.abandonFlushes(flushesWaiting)) }
                    flushesWaiting = []
                    return actions + [.finishStops(stops)]
                }
                // Started again while stopping: the stops are answered, the flushes waiting go
                // with the new pass.
                actions.append(.finishStops(stops))
                lifecycle = .running
                flushesInPass = flushesWaiting
                flushesWaiting = []
                return actions + beginPass(everything: !flushesInPass.isEmpty)
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
                // A stop after a start that came while stopping cancels that restart.
                lifecycle = .stopping(restart: false)
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
