import DepotPromise
import Dispatch
import Foundation
import Testing

/// Promises/A+ 2.2.6: `then` may be called several times on one promise; when it settles, its
/// handlers run in the order of their originating calls — here, handlers bound to one serial queue,
/// however that queue was reached. On Linux `DispatchQueue.main` makes a new wrapper object on every
/// access, so "the same queue" is not "the same object".
@Suite(.timeLimit(.minutes(1))) struct APlus226 {
    /// Rounds of the settle race below: 5 under ThreadSanitizer (its runtime is loaded), whose
    /// main queue, ten times slower, serves every test running in parallel; 25 otherwise.
    static let settleRounds = dlsym(nil, "__tsan_init") != nil ? 5 : 25

    /// How a test reaches its serial queue for the handler at `index`.
    enum Reach: String, CustomStringConvertible, CaseIterable, Sendable {
        /// A serial queue the test makes, through one wrapper.
        case serialQueue
        /// The main queue, through a new `DispatchQueue.main` wrapper for every handler.
        case freshMainWrappers
        /// The main queue, through one stored wrapper for even handlers and new ones for odd ones.
        case mixedMainWrappers

        var description: String { rawValue }

        func queue(_ index: Int) -> DispatchQueue {
            switch self {
            case .serialQueue: return Self.serial
            case .freshMainWrappers: return .main
            case .mixedMainWrappers: return index.isMultiple(of: 2) ? Self.storedMain : .main
            }
        }

        private static let serial = makeQueue("aplus-2.2.6")
        private static let storedMain = DispatchQueue.main
    }

    /// When the promise settles relative to attaching its handlers.
    enum Timing: String, CustomStringConvertible, CaseIterable, Sendable {
        /// Already settled when the handlers are attached.
        case alreadySettled
        /// Settled from the test right after the handlers are attached.
        case settledAfter
        /// Settled by a step that runs on the handlers' queue (so inside a hop on it).
        case settledOnQueue

        var description: String { rawValue }
    }

    /// A promise settled with `outcome` at `timing`; `attach` adds the handlers.
    private func withPromise(
        _ outcome: Result<Int, any Error>, _ timing: Timing, reach: Reach, attach: (Promise<Int>) -> Void
    ) {
        switch timing {
        case .alreadySettled:
            let promise = Promise<Int> { $0.resolve(outcome) }
            attach(promise)
        case .settledAfter:
            let (promise, resolver) = Promise<Int>.pending()
            attach(promise)
            resolver.resolve(outcome)
        case .settledOnQueue:
            let (gate, resolver) = Promise<Int>.pending()
            let promise = gate.map(on: reach.queue(0)) { _ in try outcome.get() }
            attach(promise)
            resolver.fulfill(0)
        }
    }

    @Test(
        "2.2.6.1 fulfilled: handlers on one serial queue run in the order they were attached",
        arguments: Reach.allCases, Timing.allCases)
    func fulfilledInOrder(reach: Reach, timing: Timing) async throws {
        let log = EventLog()
        var steps: [Promise<Int>] = []
        withPromise(.success(7), timing, reach: reach) { promise in
            steps = (0..<8).map { index in
                promise.map(on: reach.queue(index)) { value in
                    log.append("\(index)")
                    return value + index
                }
            }
        }
        for (index, step) in steps.enumerated() { #expect(try await step.value == 7 + index) }
        #expect(log.all == (0..<8).map(String.init))
    }

    @Test(
        "2.2.6.2 rejected: handlers on one serial queue run in the order they were attached",
        arguments: Reach.allCases, Timing.allCases)
    func rejectedInOrder(reach: Reach, timing: Timing) async throws {
        let log = EventLog()
        var steps: [Guarantee<Void>] = []
        withPromise(.failure(TestError(id: 2)), timing, reach: reach) { promise in
            steps = (0..<8).map { index in
                promise.catch(on: reach.queue(index)) { error in
                    #expect(error as? TestError == TestError(id: 2))
                    log.append("\(index)")
                }
            }
        }
        for step in steps { await step.value }
        #expect(log.all == (0..<8).map(String.init))
    }

    @Test(
        "2.2.6.2 recover then catch on one rejected promise run in that order", arguments: Reach.allCases,
        Timing.allCases)
    func recoverThenCatch(reach: Reach, timing: Timing) async throws {
        let log = EventLog()
        var observed: Guarantee<Void>?
        var recovered: Promise<Int>?
        var caught: Guarantee<Void>?
        withPromise(.failure(TestError(id: 3)), timing, reach: reach) { promise in
            observed = promise.catch(on: reach.queue(0)) { _ in log.append("observe") }
            recovered = promise.recover(on: reach.queue(1)) { _ in
                log.append("recover")
                return Promise(5)
            }
            caught = promise.catch(on: reach.queue(2)) { _ in log.append("catch") }
        }
        await (try #require(observed)).value
        #expect(try await #require(recovered).value == 5)
        await (try #require(caught)).value
        #expect(log.all == ["observe", "recover", "catch"])
    }

    @Test(
        "2.2.6 a handler attached inside an earlier handler runs after the handlers attached before it",
        arguments: Reach.allCases, [true, false])
    func attachedInsideHandler(reach: Reach, rejected: Bool) async throws {
        let log = EventLog()
        let outcome: Result<Int, any Error> = rejected ? .failure(TestError(id: 4)) : .success(4)
        // Settled after both outer handlers are attached, from a block on their queue: the settle
        // schedules both before the first can run (and attach the third). Settled from another
        // thread, the first could run, and post the third, before the settle posts the second.
        let (promise, resolver) = Promise<Int>.pending()
        let inner = LockedValue<Promise<Void>?>(nil)
        let first = promise.tap(on: reach.queue(0)) { _ in
            log.append("1")
            let third = promise.tap(on: reach.queue(2)) { _ in log.append("3") }.asVoid()
            inner.withLock { $0 = third.recover { _ in }.promise }
        }
        let second = promise.tap(on: reach.queue(1)) { _ in log.append("2") }
        reach.queue(0).async { resolver.resolve(outcome) }
        _ = await first.asVoid().recover { _ in }.value
        _ = await second.asVoid().recover { _ in }.value
        let third = try #require(inner.withLock { $0 })
        try await third.value
        #expect(log.all == ["1", "2", "3"])
    }

    @Test(
        "2.2.6 a handler attached inside the first handler runs after the others a settle on another thread still schedules",
        arguments: Reach.allCases, [true, false])
    func attachedInsideHandlerDuringSettle(reach: Reach, rejected: Bool) async throws {
        // Settled from this thread, not the queue: the first handler starts on the queue while the
        // settle still posts the ones attached after it, and attaches the inner one meanwhile. The
        // many handlers after the first keep the settle busy long enough for that to happen on most
        // rounds; before the fix, the inner handler overtook some of them.
        let others = 400
        for round in 0..<Self.settleRounds {
            let log = EventLog()
            let outcome: Result<Int, any Error> = rejected ? .failure(TestError(id: round)) : .success(round)
            let (promise, resolver) = Promise<Int>.pending()
            let inner = LockedValue<Promise<Int>?>(nil)
            let first = promise.tap(on: reach.queue(0)) { _ in
                log.append("first")
                let attached = promise.tap(on: reach.queue(1)) { _ in log.append("inner") }
                inner.withLock { $0 = attached }
            }
            let later = (1...others).map { index in
                promise.tap(on: reach.queue(index)) { _ in log.append("\(index)") }
            }
            resolver.resolve(outcome)
            _ = await first.settledResult
            for step in later { _ = await step.settledResult }
            _ = try await #require(inner.withLock { $0 }).settledResult
            let (order, expected) = (log.all, ["first"] + (1...others).map(String.init) + ["inner"])
            let wrong = order.indices.first { $0 >= expected.count || order[$0] != expected[$0] }
            let ran = wrong.map { order[$0] } ?? "", due = wrong.map { $0 < expected.count ? expected[$0] : "" } ?? ""
            try #require(
                wrong == nil && order.count == expected.count,
                "round \(round): at \(wrong ?? -1), \(ran) ran where \(due) was due")
        }
    }

    @Test("2.2.6 each handler's chain gets its own value", arguments: Reach.allCases)
    func branchingChains(reach: Reach) async throws {
        let (promise, resolver) = Promise<Int>.pending()
        let doubled = promise.map(on: reach.queue(0)) { $0 * 2 }
        let negated = promise.map(on: reach.queue(1)) { -$0 }
        let rejected = promise.map(on: reach.queue(2)) { _ -> Int in throw TestError(id: 6) }
        resolver.fulfill(21)
        #expect(try await doubled.value == 42)
        #expect(try await negated.value == -21)
        await #expect(throws: TestError(id: 6)) { try await rejected.value }
    }
}
