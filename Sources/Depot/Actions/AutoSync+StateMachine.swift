import Foundation

extension AutoSync {
    /// AutoSync's schedule and lifecycle as a value: inputs (add, start, stop, pause, resume, a
    /// trigger, a wake, a run's end) go in with the time they happen, the actions its shell must
    /// take come out. No I/O, no clock of its own, no randomness (the shell passes the jittered
    /// interval): tested on its own.
    ///
    /// - Each action runs at most once at a time; a trigger that comes while it runs is kept and
    ///   runs it again when it ends.
    /// - Local writes are debounced: a run follows the last write of a burst by
    ///   ``AutoSyncConfiguration/debounce``, but never later than
    ///   ``AutoSyncConfiguration/maximumDebounce`` after the burst's first write, so writes that
    ///   never stop still get runs. During a failure's backoff, local writes wait for it.
    /// - A stop waits for the runs under way, then answers every waiting stop. A start while
    ///   stopping does not take those stops back: they are answered when the last run ends, then
    ///   AutoSync runs again. A stop after that start cancels the restart. Every stop is answered.
    struct StateMachine: Sendable {
        enum Lifecycle: Sendable, Hashable {
            /// Runs nothing; triggers still move due times.
            case stopped
            /// Runs each action when it is due.
            case running
            /// A stop waits for the runs under way; `restart` when a start came since.
            case stopping(restart: Bool)
        }

        /// What the shell must do.
        enum Action: Sendable, Hashable {
            /// Submit action `index`, for `trigger`; report its end with ``runFinished(_:failure:interval:now:)``.
            case launch(index: Int, trigger: Trigger)
            /// Replace the scheduled wake: call ``tick(now:)`` at `date`, or never when nil.
            /// `generation` grows with each one: a shell keeps the newest only.
            case scheduleWake(Date?, generation: Int)
            /// Running begins: watch the observed forwarders.
            case began
            /// Running ended: stop watching, end the event streams.
            case ended
            /// Return from these `stop()` calls.
            case finishStops([Int])
        }

        /// A trigger waiting for its run, and when it asks the run to start.
        struct Request: Sendable, Hashable {
            var trigger: Trigger
            var at: Date
        }

        /// One action's schedule.
        struct Entry: Sendable, Hashable {
            /// When it runs next, and why.
            var due: Date
            var trigger = Trigger.schedule
            /// Failures in a row.
            var failures = 0
            var running = false
            /// A trigger that came while it ran.
            var rerun: Request?
            /// When the first local write of the burst waiting for a run came.
            var burstStart: Date?
        }

        let configuration: AutoSyncConfiguration
        private(set) var lifecycle = Lifecycle.stopped
        private(set) var paused = false
        private(set) var entries: [Entry] = []
        private var stops: [Int] = []
        /// The wake the shell has scheduled.
        private(set) var wake: Date?
        private var wakeGeneration = 0

        init(configuration: AutoSyncConfiguration) {
            self.configuration = configuration
        }

        /// How many runs are under way.
        var runsInFlight: Int { entries.count { $0.running } }

        /// Adds an action, due at once.
        mutating func add(now: Date) -> [Action] {
            entries.append(Entry(due: now))
            return settle(now: now)
        }

        mutating func start(now: Date) -> [Action] {
            switch lifecycle {
            case .running:
                return []
            case .stopping:
                // The waiting stops are answered when the last run ends; then it runs again.
                lifecycle = .stopping(restart: true)
                return []
            case .stopped:
                lifecycle = .running
                // Each action at once, except one waiting out a failure's backoff.
                for index in entries.indices where entries[index].failures == 0 && entries[index].due > now {
                    entries[index].due = now
                    entries[index].trigger = .schedule
                }
                return [.began] + settle(now: now)
            }
        }

        mutating func stop(_ id: Int, now: Date) -> [Action] {
            switch lifecycle {
            case .stopped:
                return [.ended, .finishStops([id])]
            case .running, .stopping:
                // A stop after a start that came while stopping cancels that restart.
                lifecycle = .stopping(restart: false)
                stops.append(id)
                return finishStopping(now: now) + settle(now: now)
            }
        }

        mutating func pause(now: Date) -> [Action] {
            paused = true
            return settle(now: now)
        }

        mutating func resume(now: Date) -> [Action] {
            paused = false
            return settle(now: now)
        }

        /// Asks every action to run: now, or after the debounce for a local write.
        mutating func trigger(_ trigger: Trigger, now: Date) -> [Action] {
            for index in entries.indices {
                var entry = entries[index]
                // Local writes during a backoff wait for it; a restored connection does not.
                if trigger == .localWrite, entry.failures > 0 { continue }
                var at = now
                if trigger == .localWrite {
                    let start = entry.burstStart ?? now
                    entry.burstStart = start
                    at = min(
                        now.addingTimeInterval(configuration.debounce.seconds),
                        start.addingTimeInterval(max(configuration.maximumDebounce.seconds, 0)))
                    at = max(at, now)
                }
                let request = Request(trigger: trigger, at: at)
                if entry.running {
                    if Self.replaces(request, pending: entry.rerun) { entry.rerun = request }
                } else if Self.replaces(request, pending: Request(trigger: entry.trigger, at: entry.due)) {
                    (entry.due, entry.trigger) = (at, trigger)
                }
                entries[index] = entry
            }
            return settle(now: now)
        }

        /// The scheduled wake came (or an earlier one did late): runs what is due.
        mutating func tick(now: Date) -> [Action] {
            wake = nil
            return settle(now: now)
        }

        /// Run `index` ended, `failure` when it failed; `interval` is its (jittered) interval.
        mutating func runFinished(_ index: Int, failure: DepotError?, interval: Duration, now: Date) -> [Action] {
            var entry = entries[index]
            precondition(entry.running, "AutoSync: a run ended that was not under way")
            entry.running = false
            entry.failures = failure == nil ? 0 : entry.failures + 1
            if let rerun = entry.rerun, failure == nil || rerun.trigger != .localWrite {
                // A trigger that came while it ran: run again for it.
                (entry.due, entry.trigger) = (max(rerun.at, now), rerun.trigger)
            } else {
                let pause = failure.map { configuration.backoff(failures: entry.failures, error: $0) }
                entry.due = now.addingTimeInterval((pause ?? interval).seconds)
                entry.trigger = failure == nil ? .schedule : .retry
                // Writes wait for the backoff (or had their run): a new burst starts afresh.
                entry.burstStart = nil
            }
            entry.rerun = nil
            entries[index] = entry
            return finishStopping(now: now) + settle(now: now)
        }

        /// A new request takes the place of the pending one when it asks for an earlier run, when
        /// both are local writes (the burst goes on: later, within the maximum), or when it is
        /// not a local write and the pending one is (it asks for a run now, and a failure's
        /// backoff must not drop it as it drops local writes).
        private static func replaces(_ request: Request, pending: Request?) -> Bool {
            guard let pending else { return true }
            if pending.trigger == .localWrite { return true }
            return request.at < pending.at
        }

        /// Once a stop has no run left to wait for: answers the stops, and runs again when a
        /// start came meanwhile.
        private mutating func finishStopping(now: Date) -> [Action] {
            guard case .stopping(let restart) = lifecycle, runsInFlight == 0 else { return [] }
            lifecycle = .stopped
            let actions: [Action] = [.ended, .finishStops(stops)]
            stops = []
            return restart ? actions + start(now: now) : actions
        }

        /// Launches what is due and keeps the wake on the earliest due time still ahead.
        private mutating func settle(now: Date) -> [Action] {
            var actions: [Action] = []
            let active = lifecycle == .running && !paused
            var next: Date?
            for index in entries.indices where !entries[index].running && active {
                if entries[index].due <= now {
                    entries[index].running = true
                    entries[index].burstStart = nil
                    actions.append(.launch(index: index, trigger: entries[index].trigger))
                } else {
                    next = min(next ?? .distantFuture, entries[index].due)
                }
            }
            if next != wake {
                wake = next
                wakeGeneration += 1
                actions.append(.scheduleWake(next, generation: wakeGeneration))
            }
            return actions
        }
    }
}
