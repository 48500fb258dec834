import Testing

@testable import Depot

/// Drives `Forwarder.StateMachine` with random sequences of start, stop, flush, forgotten
/// flushes, wakes and pass ends, playing the shell's part, and checks after every step that no
/// caller is left waiting and no requested pass is lost.
@Suite struct ForwarderStateMachinePropertyTests {
    typealias Machine = Forwarder.StateMachine

    /// The shell's view: what is in flight and who waits.
    struct Harness {
        var machine = Machine()
        var passInFlight = false
        var wakeScheduled = false
        var stops: Set<Int> = []
        var flushes: Set<Int> = []
        var nextID = 0
        /// A wake came while running during the pass in flight.
        var wokenDuringPass = false

        /// Applies `actions`; returns the first broken rule.
        mutating func apply(_ actions: [Machine.Action]) -> String? {
            for action in actions {
                switch action {
                case .runPass:
                    if passInFlight { return "a second pass began while one was in flight" }
                    (passInFlight, wokenDuringPass) = (true, false)
                case .finishFlushes(let ids), .abandonFlushes(let ids):
                    for id in ids {
                        if flushes.remove(id) == nil { return "flush \(id) answered twice or never asked" }
                    }
                case .scheduleWake:
                    wakeScheduled = true
                case .cancelWake:
                    wakeScheduled = false
                case .finishStops(let ids):
                    for id in ids {
                        if stops.remove(id) == nil { return "stop \(id) answered twice or never asked" }
                    }
                }
            }
            return check()
        }

        /// The rules that hold between any two inputs.
        func check() -> String? {
            if !passInFlight {
                if !stops.isEmpty { return "stops \(stops.sorted()) wait with no pass in flight" }
                if !flushes.isEmpty { return "flushes \(flushes.sorted()) wait with no pass in flight" }
                if machine.lifecycle == .running, !wakeScheduled {
                    return "running, no pass in flight, and no wake scheduled"
                }
            }
            if machine.passRunning != passInFlight { return "the machine and the shell disagree on the pass" }
            return nil
        }

        mutating func step(_ generator: inout SplitMix64) -> String? {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<15:
                return apply(machine.start())
            case 15..<30:
                nextID += 1
                stops.insert(nextID)
                return apply(machine.stop(nextID))
            case 30..<45:
                nextID += 1
                flushes.insert(nextID)
                return apply(machine.flush(nextID))
            case 45..<50:
                guard let id = flushes.sorted().randomElement(using: &generator) else { return nil }
                machine.forget(flush: id)
                flushes.remove(id)
                return check()
            case 50..<65:
                // A local write, or the scheduled wake's time came.
                if passInFlight, machine.lifecycle == .running { wokenDuringPass = true }
                return apply(machine.wake())
            default:
                guard passInFlight else { return nil }
                passInFlight = false
                let woken = wokenDuringPass
                let actions = machine.passFinished()
                if let broken = apply(actions) { return broken }
                if woken, machine.lifecycle == .running, !passInFlight {
                    return "a wake during the pass was lost"
                }
                return nil
            }
        }

        /// Ends every pass until none is in flight; then nobody may be waiting.
        mutating func drain() -> String? {
            var rounds = 0
            while passInFlight {
                rounds += 1
                if rounds > 100 { return "passes never stop" }
                passInFlight = false
                if let broken = apply(machine.passFinished()) { return broken }
            }
            if !stops.isEmpty || !flushes.isEmpty { return "left waiting: stops \(stops), flushes \(flushes)" }
            return check()
        }
    }

    @Test("every stop and flush is answered and no wake is lost, in 1,000 random sequences")
    func randomSequences() {
        var failures: [String] = []
        for seed in UInt64(0)..<1_000 {
            var generator = SplitMix64(seed: seed)
            var harness = Harness()
            let length = Int.random(in: 1...60, using: &generator)
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
