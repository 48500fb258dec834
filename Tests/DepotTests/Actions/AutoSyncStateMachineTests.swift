import Foundation
import Testing

@testable import Depot

@Suite struct AutoSyncStateMachineTests {
    typealias Machine = AutoSync.StateMachine
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func makeMachine() -> Machine {
        Machine(
            configuration: AutoSyncConfiguration(
                jitter: 0, baseDelay: .seconds(5), maximumDelay: .seconds(60), debounce: .seconds(2),
                maximumDebounce: .seconds(10)))
    }

    /// A running machine with one action that has had its first run, idle until `start + 300`.
    func idleMachine() -> Machine {
        var machine = makeMachine()
        _ = machine.add(now: start)
        _ = machine.start(now: start)
        _ = machine.runFinished(0, failure: nil, interval: .seconds(300), now: start)
        return machine
    }

    @Test("start launches each action at once and sleeps until the next is due")
    func startAndSchedule() {
        var machine = makeMachine()
        #expect(machine.add(now: start) == [], "stopped: nothing runs")
        #expect(machine.start(now: start) == [.began, .launch(index: 0, trigger: .schedule)])
        #expect(machine.start(now: start) == [])
        let later = start.addingTimeInterval(300)
        #expect(
            machine.runFinished(0, failure: nil, interval: .seconds(300), now: start)
                == [.scheduleWake(later, generation: 1)])
        #expect(machine.tick(now: later) == [.launch(index: 0, trigger: .schedule)], "the wake came: none is left")
    }

    @Test("a burst of writes every 125 ms runs the action 10 s after its first write, not never")
    func maximumDebounce() {
        var machine = idleMachine()
        var now = start
        var launches: [Date] = []
        for _ in 0..<240 {
            now = now.addingTimeInterval(0.125)
            _ = machine.trigger(.localWrite, now: now)
            if let wake = machine.wake, wake <= now.addingTimeInterval(0.125) {
                // The wake comes before the next write: the action runs, and ends at once.
                #expect(machine.tick(now: wake).contains(.launch(index: 0, trigger: .localWrite)))
                launches.append(wake)
                _ = machine.runFinished(0, failure: nil, interval: .seconds(300), now: wake)
            }
        }
        let first = start.addingTimeInterval(0.125)
        #expect(launches == [10, 20, 30].map { first.addingTimeInterval($0) })
    }

    @Test("writes during a run run it again after the debounce, within the maximum from the burst's first write")
    func writesDuringARun() {
        var machine = idleMachine()
        _ = machine.trigger(.manual, now: start)
        _ = machine.trigger(.localWrite, now: start.addingTimeInterval(1))
        _ = machine.trigger(.localWrite, now: start.addingTimeInterval(9))
        let end = start.addingTimeInterval(9.5)
        #expect(
            machine.runFinished(0, failure: nil, interval: .seconds(300), now: end)
                == [.scheduleWake(start.addingTimeInterval(11), generation: 3)])
    }

    @Test("during a backoff, writes wait for it; a restored connection does not")
    func backoff() {
        var machine = idleMachine()
        _ = machine.trigger(.manual, now: start)
        let failure = DepotError(.status, "unavailable", status: 503)
        _ = machine.runFinished(0, failure: failure, interval: .seconds(300), now: start)
        #expect(machine.wake == start.addingTimeInterval(5))
        #expect(machine.trigger(.localWrite, now: start.addingTimeInterval(1)) == [])
        #expect(
            machine.trigger(.connectionRestored, now: start.addingTimeInterval(2))
                == [.launch(index: 0, trigger: .connectionRestored), .scheduleWake(nil, generation: 4)])
    }

    @Test("stop with no run under way is answered at once; stop while stopped too")
    func stopIdle() {
        var machine = idleMachine()
        #expect(machine.stop(1, now: start) == [.ended, .finishStops([1]), .scheduleWake(nil, generation: 2)])
        #expect(machine.stop(2, now: start) == [.ended, .finishStops([2])])
        #expect(machine.lifecycle == .stopped)
    }

    @Test("a start while a stop waits for the run under way: the stop is answered when it ends, then it runs again")
    func restartWhileStopping() {
        var machine = makeMachine()
        _ = machine.add(now: start)
        _ = machine.start(now: start)
        #expect(machine.stop(1, now: start) == [])
        #expect(machine.start(now: start) == [])
        #expect(machine.trigger(.manual, now: start) == [], "stopping: nothing new runs")
        #expect(
            machine.runFinished(0, failure: nil, interval: .seconds(300), now: start)
                == [.ended, .finishStops([1]), .began, .launch(index: 0, trigger: .manual)])
        #expect(machine.lifecycle == .running)
    }

    @Test("a stop after such a start cancels the restart; both stops are answered")
    func stopAfterRestart() {
        var machine = makeMachine()
        _ = machine.add(now: start)
        _ = machine.start(now: start)
        _ = machine.stop(1, now: start)
        _ = machine.start(now: start)
        #expect(machine.stop(2, now: start) == [])
        #expect(
            machine.runFinished(0, failure: nil, interval: .seconds(300), now: start)
                == [.ended, .finishStops([1, 2])])
        #expect(machine.lifecycle == .stopped && machine.wake == nil)
    }

    @Test("pause holds every run and the wake; resume runs what fell due")
    func pauseResume() {
        var machine = idleMachine()
        #expect(machine.pause(now: start) == [.scheduleWake(nil, generation: 2)])
        let later = start.addingTimeInterval(900)
        #expect(machine.tick(now: later) == [])
        #expect(machine.resume(now: later) == [.launch(index: 0, trigger: .schedule)])
    }
}
