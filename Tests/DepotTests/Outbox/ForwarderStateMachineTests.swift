import Testing

@testable import Depot

@Suite struct ForwarderStateMachineTests {
    typealias Machine = Forwarder.StateMachine

    @Test("start runs a pass; a pass's end schedules a wake; a wake runs the next pass")
    func backgroundCycle() {
        var machine = Machine()
        #expect(machine.start() == [.cancelWake, .runPass(everything: false)])
        #expect(machine.start() == [])
        #expect(machine.wake() == [], "a wake during a pass is kept for its end")
        #expect(machine.passFinished() == [.cancelWake, .runPass(everything: false)])
        #expect(machine.passFinished() == [.scheduleWake])
        #expect(machine.wake() == [.cancelWake, .runPass(everything: false)])
    }

    @Test("a flush runs a pass of everything and is answered at its end; one asked during a pass waits for the next")
    func flushes() {
        var machine = Machine()
        #expect(machine.flush(1) == [.cancelWake, .runPass(everything: true)])
        #expect(machine.flush(2) == [])
        #expect(machine.passFinished() == [.finishFlushes([1]), .cancelWake, .runPass(everything: true)])
        #expect(machine.passFinished() == [.finishFlushes([2])], "stopped: no wake is scheduled")
        #expect(machine.wake() == [], "a stopped forwarder ignores wakes")
    }

    @Test("stop lets the pass in flight finish, then answers stops and abandons flushes still waiting")
    func stopDuringPass() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.flush(7)
        #expect(machine.passMayContinue)
        #expect(machine.stop(1) == [.cancelWake])
        #expect(!machine.passMayContinue)
        #expect(machine.wake() == [])
        #expect(machine.passFinished() == [.abandonFlushes([7]), .finishStops([1])])
        #expect(machine.lifecycle == .stopped && !machine.passRunning)
    }

    @Test("stop with no pass running returns at once; start after stop runs again")
    func stopIdle() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.passFinished()
        #expect(machine.stop(3) == [.cancelWake, .finishStops([3])])
        #expect(machine.start() == [.cancelWake, .runPass(everything: false)])
    }

    // Regression: a start while a pass was stopping put the forwarder back to running and the
    // waiting stop was never answered (an app going to the background and straight back).
    @Test("a start while a pass is stopping answers the stop when the pass ends, then runs again")
    func restartWhileStopping() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.flush(7)
        #expect(machine.stop(1) == [.cancelWake])
        #expect(machine.start() == [])
        #expect(!machine.passMayContinue, "the pass in flight still stops after its entry")
        #expect(
            machine.passFinished() == [.finishStops([1]), .cancelWake, .runPass(everything: true)],
            "the stop is answered; the waiting flush goes with the new pass")
        #expect(machine.lifecycle == .running && machine.passMayContinue)
        #expect(machine.passFinished() == [.finishFlushes([7]), .scheduleWake])
    }

    @Test("a stop after that start cancels the restart; every stop is answered once")
    func stopAfterRestart() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.stop(1)
        _ = machine.start()
        #expect(machine.stop(2) == [.cancelWake])
        #expect(machine.passFinished() == [.finishStops([1, 2])])
        #expect(machine.lifecycle == .stopped && !machine.passRunning)
        #expect(machine.wake() == [])
    }

    @Test("a cancelled flush is no longer answered")
    func forgottenFlush() {
        var machine = Machine()
        _ = machine.flush(1)
        _ = machine.flush(2)
        machine.forget(flush: 2)
        #expect(machine.passFinished() == [.finishFlushes([1])])
    }
}
