import Foundation
import Testing

@testable import Depot

/// Drives `AutoSync.StateMachine` with random sequences of add, start, stop, pause, resume,
/// triggers, runs ending (well or not) and time passing, playing the shell's part (it keeps the
/// newest wake and ticks at it), and checks after every step that every stop is answered and no
/// requested run is lost: each trigger gets a run by its bound (at once; a local write within the
/// maximum debounce of its burst's first write), counted from when AutoSync could run it.
@Suite struct AutoSyncStateMachinePropertyTests {
    typealias Machine = AutoSync.StateMachine
    static let debounce = 2.0
    static let maximumDebounce = 10.0

    /// What one action was asked for since its last run began.
    struct Obligation {
        /// The latest time a manual or connection trigger lets its run start.
        var urgent: Date?
        /// The first local write of the burst waiting for a run.
        var burstStart: Date?
        /// When it last became free to run (its previous run ended).
        var idleSince: Date = .distantPast

        /// When a run must have started; nil when nothing is owed.
        func deadline(activeSince: Date) -> Date? {
            let write = burstStart.map { $0.addingTimeInterval(AutoSyncStateMachinePropertyTests.maximumDebounce) }
            guard let owed = [urgent, write].compactMap({ $0 }).min() else { return nil }
            return max(owed, activeSince, idleSince)
        }
    }

    struct Harness {
        var machine = Machine(
            configuration: AutoSyncConfiguration(
                jitter: 0, baseDelay: .seconds(5), maximumDelay: .seconds(60),
                debounce: .seconds(AutoSyncStateMachinePropertyTests.debounce),
                maximumDebounce: .seconds(AutoSyncStateMachinePropertyTests.maximumDebounce)))
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        var running: Set<Int> = []
        var obligations: [Obligation] = []
        var wake: Date?
        var generation = 0
        var stops: Set<Int> = []
        var nextID = 0
        /// Since when AutoSync has been running and not paused; nil when it is not.
        var activeSince: Date?

        var active: Bool { machine.lifecycle == .running && !machine.paused }

        /// Applies `actions` as the shell would; returns the first broken rule.
        mutating func apply(_ actions: [Machine.Action]) -> String? {
            for action in actions {
                switch action {
                case .launch(let index, _):
                    if running.contains(index) { return "action \(index) launched while it runs" }
                    if !active { return "action \(index) launched while not running" }
                    running.insert(index)
                    obligations[index].urgent = nil
                    obligations[index].burstStart = nil
                case .scheduleWake(let date, let generation):
                    if generation <= self.generation { return "wake generations went back" }
                    (wake, self.generation) = (date, generation)
                case .finishStops(let ids):
                    for id in ids {
                        if stops.remove(id) == nil { return "stop \(id) answered twice or never asked" }
                    }
                case .began, .ended:
                    break
                }
            }
            if active {
                if activeSince == nil { activeSince = now }
            } else {
                activeSince = nil
            }
            return check()
        }

        /// The rules that hold between any two inputs.
        func check() -> String? {
            if running.isEmpty, !stops.isEmpty { return "stops \(stops.sorted()) wait with no run under way" }
            if Set(machine.entries.indices.filter { machine.entries[$0].running }) != running {
                return "the machine and the shell disagree on the runs"
            }
            guard let activeSince else {
                if wake != nil { return "a wake is scheduled while not running" }
                return nil
            }
            for index in machine.entries.indices where !running.contains(index) {
                let due = machine.entries[index].due
                if due <= now { return "action \(index) is due and idle" }
                guard let wake, wake <= due else { return "no wake for action \(index), due \(due)" }
                if let deadline = obligations[index].deadline(activeSince: activeSince), due > deadline {
                    return "action \(index) is owed a run by \(deadline) but is due \(due): a run was lost"
                }
            }
            return nil
        }

        mutating func step(_ generator: inout SplitMix64) -> String? {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<4:
                guard obligations.count < 3 else { return nil }
                obligations.append(Obligation(urgent: now))
                return apply(machine.add(now: now))
            case 4..<12:
                return apply(machine.start(now: now))
            case 12..<20:
                nextID += 1
                stops.insert(nextID)
                return apply(machine.stop(nextID, now: now))
            case 20..<24:
                return apply(machine.pause(now: now))
            case 24..<30:
                return apply(machine.resume(now: now))
            case 30..<55:
                let trigger: AutoSync.Trigger = Bool.random(using: &generator) ? .localWrite : .manual
                for index in obligations.indices {
                    if trigger == .localWrite {
                        // Local writes during a backoff wait for it.
                        guard machine.entries[index].failures == 0 else { continue }
                        if obligations[index].burstStart == nil { obligations[index].burstStart = now }
                    } else {
                        obligations[index].urgent = min(obligations[index].urgent ?? now, now)
                    }
                }
                return apply(machine.trigger(trigger, now: now))
            case 55..<75:
                guard let index = running.sorted().randomElement(using: &generator) else { return nil }
                running.remove(index)
                obligations[index].idleSince = now
                var failure: DepotError?
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    failure = DepotError(.status, "unavailable", status: 503)
                    // The burst's writes wait for the backoff.
                    obligations[index].burstStart = nil
                }
                return apply(machine.runFinished(index, failure: failure, interval: .seconds(300), now: now))
            case 75..<80:
                // A wake that was replaced but fired anyway: the machine forgets its wake.
                wake = nil
                return apply(machine.tick(now: now))
            default:
                let step = [0.125, 0.5, 1, 2.5, 7, 30, 400][Int.random(in: 0..<7, using: &generator)]
                return advance(to: now.addingTimeInterval(step))
            }
        }

        /// Moves time to `target`, ticking at every wake on the way, as the shell's timer does.
        mutating func advance(to target: Date) -> String? {
            while let wake, wake <= target {
                (now, self.wake) = (wake, nil)
                if let broken = apply(machine.tick(now: now)) { return broken }
            }
            now = target
            return check()
        }

        /// Ends every run; then no stop may wait.
        mutating func drain() -> String? {
            for index in running.sorted() {
                running.remove(index)
                obligations[index].idleSince = now
                if let broken = apply(machine.runFinished(index, failure: nil, interval: .seconds(300), now: now)) {
                    return broken
                }
            }
            return stops.isEmpty ? check() : "left waiting: stops \(stops.sorted())"
        }
    }

    @Test("every stop is answered and no requested run is lost, in 1,000 random sequences")
    func randomSequences() {
        var failures: [String] = []
        for seed in UInt64(0)..<1_000 {
            var generator = SplitMix64(seed: seed)
            var harness = Harness()
            let length = Int.random(in: 1...80, using: &generator)
            var broken: String?
            for index in 0..<length where broken == nil {
                broken = harness.step(&generator).map { "step \(index): \($0)" }
            }
            if broken == nil { broken = harness.drain().map { "drain: \($0)" } }
            if let broken { failures.append("seed \(seed), \(broken)") }
        }
        #expect(failures.isEmpty, "\(failures.count) failing sequences, first: \(failures.prefix(3))")
    }
}
