import Depot
import DepotTesting
import Foundation
import Testing

/// An action that counts its runs and fails while told to.
struct CountedAction: Action {
    let runs: LockedValue<Int>
    let failure: LockedValue<DepotError?>
    var name: String { "counted" }
    var serializationKey: String? { "counted" }

    func execute(context: ActionContext) async throws -> Int {
        let count = runs.withLock {
            $0 += 1
            return $0
        }
        if let failure = failure.withLock({ $0 }) { throw failure }
        return count
    }
}

@Suite struct AutoSyncTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func makeSync(_ clock: ManualForwarderClock) -> (AutoSync, LockedValue<Int>, LockedValue<DepotError?>) {
        let sync = AutoSync(
            executor: ActionExecutor(maxConcurrent: 2), every: .seconds(300),
            configuration: AutoSyncConfiguration(
                jitter: 0, baseDelay: .seconds(5), maximumDelay: .seconds(60), debounce: .seconds(2), clock: clock))
        let runs = LockedValue(0)
        let failure = LockedValue<DepotError?>(nil)
        sync.add(CountedAction(runs: runs, failure: failure))
        return (sync, runs, failure)
    }

    @Test("runs at start, then exactly every interval; failures back off, doubling, capped, Retry-After first")
    func scheduleAndBackoff() async throws {
        let clock = ManualForwarderClock(start: start)
        let (sync, runs, failure) = makeSync(clock)
        var finishes = AutoSyncRuns(sync)
        sync.start()
        var run = try #require(await finishes.next())
        #expect(run.trigger == .schedule && run.next == start.addingTimeInterval(300) && runs.withLock { $0 } == 1)
        // Asleep until exactly 300 s; 299 s later nothing has run.
        #expect(await eventuallyAsync { clock.deadlines == [start.addingTimeInterval(300)] })
        clock.advance(by: .seconds(299))
        #expect(clock.deadlines == [start.addingTimeInterval(300)] && runs.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        run = try #require(await finishes.next())
        #expect(run.trigger == .schedule && run.next == start.addingTimeInterval(600) && runs.withLock { $0 } == 2)

        // Failures: 5 s, then 10 s; a Retry-After of 42 s wins; the cap is 60 s.
        failure.withLock { $0 = DepotError(.status, "unavailable", status: 503) }
        sync.trigger(.manual)
        run = try #require(await finishes.next())
        #expect(run.failure?.status == 503 && run.next == clock.now.addingTimeInterval(5))
        clock.advance(by: .seconds(5))
        run = try #require(await finishes.next())
        #expect(run.trigger == .retry && run.next == clock.now.addingTimeInterval(10))
        failure.withLock {
            $0 = DepotError(.status, "slow down", status: 429, responseHeaders: ["Retry-After": "42"])
        }
        clock.advance(by: .seconds(10))
        run = try #require(await finishes.next())
        #expect(run.next == clock.now.addingTimeInterval(42))
        failure.withLock { $0 = DepotError(.status, "down", status: 500, responseHeaders: ["Retry-After": "99999"]) }
        clock.advance(by: .seconds(42))
        run = try #require(await finishes.next())
        #expect(run.next == clock.now.addingTimeInterval(60))
        // Success again: back to the interval.
        failure.withLock { $0 = nil }
        clock.advance(by: .seconds(60))
        run = try #require(await finishes.next())
        #expect(run.failure == nil && run.next == clock.now.addingTimeInterval(300))
        #expect(runs.withLock { $0 } == 7)
        await sync.stop()
    }

    @Test("local writes run it after the debounce (each write moves it), a restored connection at once")
    func triggers() async throws {
        let clock = ManualForwarderClock(start: start)
        let (sync, runs, _) = makeSync(clock)
        var finishes = AutoSyncRuns(sync)
        sync.start()
        _ = try #require(await finishes.next())
        sync.trigger(.localWrite)
        clock.advance(by: .seconds(1))
        sync.trigger(.localWrite)  // the burst goes on: 2 s from now
        #expect(await eventuallyAsync { clock.deadlines == [clock.now.addingTimeInterval(2)] })
        clock.advance(by: .seconds(1))
        #expect(runs.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        var run = try #require(await finishes.next())
        #expect(run.trigger == .localWrite && runs.withLock { $0 } == 2)
        sync.trigger(.connectionRestored)
        run = try #require(await finishes.next())
        #expect(run.trigger == .connectionRestored && runs.withLock { $0 } == 3)
        await sync.stop()
    }

    // Regression: each local write moved the run later with no maximum, so writes that kept
    // coming faster than the debounce never let it run.
    @Test("writes every 125 ms for 30 s run it 10 s after each burst's first write, not never")
    func writesThatNeverStop() async throws {
        let clock = ManualForwarderClock(start: start)
        let (sync, runs, _) = makeSync(clock)
        var finishes = AutoSyncRuns(sync)
        sync.start()
        _ = try #require(await finishes.next())
        var burstStart: Date?
        for _ in 0..<240 {
            sync.trigger(.localWrite)
            let first = burstStart ?? clock.now
            burstStart = first
            // The debounce moves the run later, but never past 10 s after the burst's first write.
            let due = min(clock.now.addingTimeInterval(2), first.addingTimeInterval(10))
            try #require(await eventuallyAsync { clock.deadlines == [due] })
            clock.advance(by: .milliseconds(125))
            if clock.now == due {
                let run = try #require(await finishes.next())
                #expect(run.trigger == .localWrite && run.next == due.addingTimeInterval(300))
                burstStart = nil
            }
        }
        #expect(runs.withLock { $0 } == 4, "the first run, then one at 10 s, 20 s and 30 s")
        await sync.stop()
    }

    @Test("stop and start in any order around a run under way: every stop returns, and a last start runs again")
    func lifecycleInterleavings() async throws {
        let clock = ManualForwarderClock(start: start)
        let sync = AutoSync(
            executor: ActionExecutor(maxConcurrent: 2), every: .seconds(300),
            configuration: AutoSyncConfiguration(jitter: 0, clock: clock))
        let gate = RunGate()
        sync.add(GatedAction(gate: gate))
        sync.start()
        await gate.entered()
        // Stops and starts race the run under way; none of the stops may hang.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                if index.isMultiple(of: 2) {
                    group.addTask { await sync.stop() }
                } else {
                    group.addTask { sync.start() }
                }
            }
            group.addTask { gate.open() }
        }
        // A last start, then a stop: it runs again, and the stop returns after that run.
        sync.start()
        await gate.entered()
        await sync.stop()
    }

    @Test("pause holds every run, resume runs what fell due; stop ends the events")
    func pauseResumeStop() async throws {
        let clock = ManualForwarderClock(start: start)
        let (sync, runs, _) = makeSync(clock)
        var finishes = AutoSyncRuns(sync)
        sync.start()
        _ = try #require(await finishes.next())
        sync.pause()
        #expect(sync.isPaused)
        clock.advance(by: .seconds(900))
        sync.trigger(.connectionRestored)
        #expect(await eventuallyAsync { clock.deadlines.isEmpty })  // paused: asleep with no deadline
        #expect(runs.withLock { $0 } == 1)
        sync.resume()
        let run = try #require(await finishes.next())
        #expect(runs.withLock { $0 } == 2 && run.next == clock.now.addingTimeInterval(300))
        await sync.stop()
        #expect(await finishes.next() == nil)
    }
}

/// Lets a test wait for each run of a ``GatedAction`` to begin; runs end once it is open.
final class RunGate: Sendable {
    private struct State {
        var open = false
        var blocked: [CheckedContinuation<Void, Never>] = []
        var entries = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = LockedValue(State())

    /// Returns when a run has begun since the last call.
    func entered() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.entries > 0 else {
                    state.waiter = continuation
                    return false
                }
                state.entries -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Ends the runs waiting, and lets every later one through.
    func open() {
        let blocked = state.withLock { state in
            state.open = true
            defer { state.blocked = [] }
            return state.blocked
        }
        for continuation in blocked { continuation.resume() }
    }

    /// Called by a run: counts it as begun, and waits until the gate is open.
    func pass() async {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.entries += 1 }
            return state.waiter
        }
        waiter?.resume()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let through = state.withLock { state -> Bool in
                if state.open { return true }
                state.blocked.append(continuation)
                return false
            }
            if through { continuation.resume() }
        }
    }
}

/// An action whose runs wait at a ``RunGate``.
struct GatedAction: Action {
    let gate: RunGate
    var name: String { "gated" }
    var serializationKey: String? { "gated" }

    func execute(context: ActionContext) async throws -> Int {
        await gate.pass()
        return 0
    }
}
