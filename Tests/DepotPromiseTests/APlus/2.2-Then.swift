import DepotPromise
import Dispatch
import Foundation
import Testing

/// Promises/A+ 2.2: the `then` method — callbacks called once, after settling, asynchronously,
/// in registration order; errors and values pass through steps that don't handle them.
@Suite struct APlusThen {
    @Test("2.2.2 onFulfilled runs once, with the value, only after fulfilment")
    func fulfilledOnceAfter() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Counter()
        let done = promise.done { value in
            #expect(value == 7)
            runs.increment()
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(runs.value == 0)
        resolver.fulfill(7)
        resolver.fulfill(8)
        try await done.value
        #expect(runs.value == 1)
    }

    @Test("2.2.3 onRejected runs once, with the reason, only after rejection")
    func rejectedOnceAfter() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Counter()
        let caught = promise.catch { error in
            #expect(error as? TestError == TestError(id: 3))
            runs.increment()
        }
        #expect(runs.value == 0)
        resolver.reject(TestError(id: 3))
        await caught.value
        #expect(runs.value == 1)
    }

    @Test("2.2.4 callbacks never run inside then on an already-settled promise (no Zalgo)")
    func noZalgo() async throws {
        let log = EventLog()
        let queue = makeQueue("zalgo")
        let done: Promise<Void> = queue.sync {
            let step = Promise(1).done(on: queue) { _ in log.append("callback") }
            log.append("after then")
            return step
        }
        try await done.value
        #expect(log.all == ["after then", "callback"])
    }

    @Test("2.2.4 a rejected, already-settled promise also calls back later")
    func noZalgoRejected() async throws {
        // The callback is bound to the serial queue the test attaches from, so "after catch" is
        // logged before the callback can start: the order is decided by the queue, not by chance.
        let log = EventLog()
        let queue = makeQueue("zalgo-rejected")
        let caught: Guarantee<Void> = queue.sync {
            let step = Promise<Int>(error: TestError()).catch(on: queue) { _ in log.append("callback") }
            log.append("after catch")
            return step
        }
        await caught.value
        #expect(log.all == ["after catch", "callback"])
    }

    @Test("callbacks run on the queue asked for", arguments: [false, true])
    func runsOnRequestedQueue(concurrent: Bool) async throws {
        let queue = makeQueue("requested", concurrent: concurrent)
        let labels = try await Promise(1)
            .map(on: queue) { _ in [DispatchQueue.getSpecific(key: queueKey)] }
            .map(on: queue) { $0 + [DispatchQueue.getSpecific(key: queueKey)] }
            .value
        #expect(labels == ["requested", "requested"])
    }

    @Test("the default queue is not the main queue and needs no run loop")
    func defaultQueueIsNotMain() async throws {
        let onMain = try await Promise(1).map { _ in Thread.isMainThread }.value
        #expect(onMain == false)
        #expect(PromiseDefaults.queue !== DispatchQueue.main)
    }

    @Test("2.2.6 callbacks on one promise run in registration order")
    func registrationOrder() async throws {
        let log = EventLog()
        let queue = makeQueue("order")
        let (promise, resolver) = Promise<Int>.pending()
        let steps = (0..<10).map { index in promise.done(on: queue) { _ in log.append("\(index)") } }
        resolver.fulfill(0)
        for step in steps { try await step.value }
        #expect(log.all == (0..<10).map(String.init))
    }

    @Test("2.2.7 a throw in a step rejects the next promise with that error")
    func throwRejects() async throws {
        let next = Promise(1).map { _ -> Int in throw TestError(id: 9) }
        await #expect(throws: TestError(id: 9)) { try await next.value }
    }

    @Test("2.2.7.3/4 values and errors pass through steps that don't handle them")
    func passThrough() async throws {
        let value = try await Promise(5).recover { _ in Promise(0) }.value
        #expect(value == 5)
        let rejected = Promise<Int>(error: TestError(id: 4)).map { $0 + 1 }.then { Promise($0 * 2) }.get { _ in }
        await #expect(throws: TestError(id: 4)) { try await rejected.value }
    }
}
