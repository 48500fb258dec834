import Testing

@testable import Depot

@Suite struct ActionStateMachineTests {
    typealias Machine = ActionRecord.StateMachine

    @Test("pending → executing → finished; a cancel after the end does nothing")
    func finishes() {
        var machine = Machine()
        #expect(machine.publicState == .pending)
        #expect(machine.start() == .run)
        #expect(machine.publicState == .executing)
        #expect(machine.end(.returned) == .finished)
        #expect(machine.cancel() == .none)
        #expect(machine.publicState == .finished)
        #expect(!machine.isCancelRequested)
    }

    @Test("a cancel before the start: cancelled at once, and the start is skipped")
    func cancelBeforeStart() {
        var machine = Machine()
        #expect(machine.cancel() == .cancelPending)
        #expect(machine.publicState == .cancelled)
        #expect(machine.cancel() == .none)
        #expect(machine.start() == .skip)
        #expect(machine.publicState == .cancelled)
    }

    @Test(
        "a cancel while running asks once; the end decides",
        arguments: [
            (Machine.Outcome.returned, ActionState.finished),
            (Machine.Outcome.threw(isCancellation: true), ActionState.cancelled),
            (Machine.Outcome.threw(isCancellation: false), ActionState.cancelled),
        ])
    func cancelWhileRunning(outcome: Machine.Outcome, final: ActionState) {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.cancel() == .cancelRunning)
        #expect(machine.isCancelRequested)
        #expect(machine.publicState == .executing)
        #expect(machine.cancel() == .none)
        #expect(machine.end(outcome) == final)
        #expect(machine.cancel() == .none)
        #expect(machine.publicState == final)
    }

    @Test("without a cancel: an error fails the action, a cancellation error cancels it")
    func endsWithoutCancel() {
        var failing = Machine()
        _ = failing.start()
        #expect(failing.end(.threw(isCancellation: false)) == .failed)
        #expect(failing.cancel() == .none)
        var cancelling = Machine()
        _ = cancelling.start()
        #expect(cancelling.end(.threw(isCancellation: true)) == .cancelled)
    }
}

@Suite struct ActionSchedulerTests {
    typealias Scheduler = ActionExecutor.Scheduler
    typealias Job = Scheduler.Job

    func job(_ id: UInt64, _ key: String? = nil) -> Job { Job(id: ActionID(rawValue: id), key: key) }
    func ids(_ values: UInt64...) -> [ActionID] { values.map { ActionID(rawValue: $0) } }

    @Test("no more than the limit run; a finished job lets the next start, in submission order")
    func limit() {
        var scheduler = Scheduler(maxConcurrent: 2)
        for id in 1...5 { #expect({ scheduler.submit(job(UInt64(id))) }()) }
        #expect(scheduler.next() == ids(1, 2))
        #expect(scheduler.next().isEmpty)
        scheduler.finished(ActionID(rawValue: 2))
        #expect(scheduler.next() == ids(3))
        scheduler.finished(ActionID(rawValue: 1))
        scheduler.finished(ActionID(rawValue: 3))
        #expect(scheduler.next() == ids(4, 5))
        #expect(scheduler.running.count == 2 && scheduler.pending.isEmpty)
    }

    @Test("one job per key at a time, in order; jobs without the key go ahead")
    func keys() {
        var scheduler = Scheduler(maxConcurrent: 4)
        _ = scheduler.submit(job(1, "a"))
        _ = scheduler.submit(job(2, "a"))
        _ = scheduler.submit(job(3))
        _ = scheduler.submit(job(4, "a"))
        _ = scheduler.submit(job(5, "b"))
        #expect(scheduler.next() == ids(1, 3, 5))
        #expect(scheduler.pending.map(\.id) == ids(2, 4))
        scheduler.finished(ActionID(rawValue: 3))
        #expect(scheduler.next().isEmpty)
        scheduler.finished(ActionID(rawValue: 1))
        #expect(scheduler.next() == ids(2))
        scheduler.finished(ActionID(rawValue: 2))
        #expect(scheduler.next() == ids(4))
    }

    @Test("suspended: nothing starts until resumed")
    func suspension() {
        var scheduler = Scheduler(maxConcurrent: 2)
        scheduler.suspend()
        _ = scheduler.submit(job(1))
        #expect(scheduler.next().isEmpty)
        scheduler.resume()
        #expect(scheduler.next() == ids(1))
    }

    @Test("a pending job removed never starts; a running one cannot be removed")
    func removal() {
        var scheduler = Scheduler(maxConcurrent: 1)
        _ = scheduler.submit(job(1))
        _ = scheduler.submit(job(2))
        #expect(scheduler.next() == ids(1))
        #expect(!{ scheduler.removePending(ActionID(rawValue: 1)) }())
        #expect({ scheduler.removePending(ActionID(rawValue: 2)) }())
        scheduler.finished(ActionID(rawValue: 1))
        #expect(scheduler.next().isEmpty)
        #expect(scheduler.isIdle)
    }

    @Test("shutdown refuses new jobs, ends a suspension, and hands back the pending ones to cancel")
    func shutdown() {
        var draining = Scheduler(maxConcurrent: 1)
        draining.suspend()
        _ = draining.submit(job(1))
        #expect(draining.shutdown(cancelPending: false).isEmpty)
        #expect(!{ draining.submit(job(2)) }())
        #expect(draining.next() == ids(1))

        var cancelling = Scheduler(maxConcurrent: 1)
        _ = cancelling.submit(job(1))
        _ = cancelling.submit(job(2))
        _ = cancelling.submit(job(3))
        #expect(cancelling.next() == ids(1))
        #expect(cancelling.shutdown(cancelPending: true) == ids(2, 3))
        #expect(!cancelling.isIdle)
        cancelling.finished(ActionID(rawValue: 1))
        #expect(cancelling.isIdle)
    }
}
